#include "analysis/fit.hpp"

#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <map>
#include <unsupported/Eigen/NonLinearOptimization>

namespace ema::fit {
namespace {

constexpr double max_log = 700;  // exp(700) ~ 1e304: keep every evaluation finite

// A free exponent is a refinement of a lattice fit: it stays within half a lattice step of the
// lattice value it started from, and like the lattice at or above 0 (a = mid + half tanh t over
// [max(0, start - 0.5), start + 0.5]). Unbounded, the exponents of a term too small to matter
// anywhere but at the largest size run off (n^48 fitted to one noisy point).
struct free_interval {
  double mid, half;
  explicit free_interval(double start, double reach = 0.5) {
    const double lo = std::max(0.0, start - reach), hi = start + reach;
    mid = (lo + hi) / 2;
    half = (hi - lo) / 2;
  }
  double value(double t) const { return mid + half * std::tanh(t); }
  double slope(double t) const {
    const double th = std::tanh(t);
    return half * (1 - th * th);
  }
  double inverse(double v) const { return std::atanh(std::clamp((v - mid) / half, -0.999, 0.999)); }
};

// Where each fitted value sits in the parameter vector of Levenberg-Marquardt:
// [ln a0, t1?, t5?, ln a2?, s?, w?] with a1, a5 as above, c = s^2 and d = w^2 so that c, d stay >= 0.
struct layout {
  int a1 = -1, a5 = -1, b = -1, s = -1, w = -1, size = 1;
  explicit layout(const shape& f) {
    if (f.free_a1) a1 = size++;
    if (f.free_a5) a5 = size++;
    if (f.exp_term) b = size++;
    if (f.constant) s = size++;
    if (f.lower) w = size++;
  }
};

equation unpack(const equation& proto, const layout& l, const Eigen::VectorXd& x) {
  equation e = proto;
  e.a0 = std::exp(std::min(x[0], max_log));
  if (l.a1 >= 0) e.a1 = free_interval(proto.form.a1, proto.form.free_half).value(x[l.a1]);
  if (l.a5 >= 0) e.a5 = free_interval(proto.form.a5, proto.form.free_half).value(x[l.a5]);
  if (l.b >= 0) e.a2 = std::exp(std::clamp(x[l.b], -max_log, max_log));
  if (l.s >= 0) e.c = x[l.s] * x[l.s];
  if (l.w >= 0) e.d = x[l.w] * x[l.w];
  return e;
}

Eigen::VectorXd pack(const equation& e, const layout& l) {
  Eigen::VectorXd x(l.size);
  x[0] = std::log(e.a0);
  if (l.a1 >= 0) x[l.a1] = free_interval(e.form.a1, e.form.free_half).inverse(e.a1);
  if (l.a5 >= 0) x[l.a5] = free_interval(e.form.a5, e.form.free_half).inverse(e.a5);
  if (l.b >= 0) x[l.b] = std::log(e.a2);
  if (l.s >= 0) x[l.s] = std::sqrt(std::max(e.c, 0.0));
  if (l.w >= 0) x[l.w] = std::sqrt(std::max(e.d, 0.0));
  return x;
}

// Relative residuals r_i = T(n_i) / y_i - 1 and their Jacobian, for Eigen's Levenberg-Marquardt.
struct relative_residuals {
  using Scalar = double;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;

  const series& data;
  const equation& proto;
  layout lay;

  int inputs() const { return lay.size; }
  int values() const { return static_cast<int>(data.size()); }

  // ln of the growing term at point i, and its pieces for the Jacobian.
  struct term {
    double log_value, ln_n, ln_lg, h;
  };
  term at(const equation& e, std::size_t i) const {
    const double n = data.n[i], l = std::log2(n);
    term t{std::log(e.a0) + e.a1 * std::log(n), std::log(n), l > 0 ? std::log(l) : 0.0, 0.0};
    if (e.a5 != 0 || lay.a5 >= 0) t.log_value += e.a5 * t.ln_lg;
    if (e.form.exp_term) {
      t.h = std::pow(n, e.a3) * (e.a4 != 0 ? std::pow(l, e.a4) : 1.0);
      t.log_value += std::log(e.a2) * t.h;
    }
    return t;
  }

  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& f) const {
    const auto e = unpack(proto, lay, x);
    for (std::size_t i = 0; i < data.size(); ++i) {
      const double v = std::exp(std::min(at(e, i).log_value, max_log)) + (lay.s >= 0 ? e.c : 0.0) + e.lower_term(data.n[i]);
      f[static_cast<Eigen::Index>(i)] = v / data.y[i] - 1;
    }
    return 0;
  }

  int df(const Eigen::VectorXd& x, Eigen::MatrixXd& jac) const {
    const auto e = unpack(proto, lay, x);
    for (std::size_t i = 0; i < data.size(); ++i) {
      const auto t = at(e, i);
      const auto r = static_cast<Eigen::Index>(i);
      const double ey = std::exp(std::min(t.log_value, max_log)) / data.y[i];
      jac(r, 0) = ey;
      if (lay.a1 >= 0) jac(r, lay.a1) = ey * t.ln_n * free_interval(proto.form.a1, proto.form.free_half).slope(x[lay.a1]);
      if (lay.a5 >= 0) jac(r, lay.a5) = ey * t.ln_lg * free_interval(proto.form.a5, proto.form.free_half).slope(x[lay.a5]);
      if (lay.b >= 0) jac(r, lay.b) = ey * t.h;
      if (lay.s >= 0) jac(r, lay.s) = 2 * x[lay.s] / data.y[i];
      if (lay.w >= 0) {
        auto unit = e;
        unit.d = 1;
        jac(r, lay.w) = 2 * x[lay.w] * unit.lower_term(data.n[i]) / data.y[i];
      }
    }
    return 0;
  }
};

bool uses_logs(const shape& s) { return s.a5 != 0 || s.free_a5 || (s.exp_term && s.a4 != 0) || (s.lower && s.l5 != 0); }

// Fixed exponents, no exponential term: T = a0 g(n) + d h(n) + c is linear in (a0, d, c).
// Minimises sum (a0 u_i + d w_i + c v_i - 1)^2 with u_i = g(n_i)/y_i, w_i = h(n_i)/y_i, v_i = 1/y_i
// (the columns a shape has), by the normal equations of the columns scaled to a largest value of 1.
// A coefficient that would be 0 or below is at its bound: the shape without that term says the
// same, so the fit is refused.
std::optional<equation> fit_linear(const series& d, const shape& s) {
  equation e = equation::of(s);
  const auto k = static_cast<Eigen::Index>(d.size());
  const int columns = 1 + s.lower + s.constant;
  Eigen::MatrixXd a(k, columns);
  auto unit = e;
  unit.a0 = 1;
  unit.d = 1;
  for (Eigen::Index i = 0; i < k; ++i) {
    const double n = d.n[static_cast<std::size_t>(i)], y = d.y[static_cast<std::size_t>(i)];
    int col = 0;
    a(i, col++) = std::exp(unit.log_term(n)) / y;
    if (s.lower) a(i, col++) = unit.lower_term(n) / y;
    if (s.constant) a(i, col++) = 1 / y;
  }
  Eigen::VectorXd scale(columns);
  for (int c = 0; c < columns; ++c) {
    scale[c] = a.col(c).cwiseAbs().maxCoeff();
    if (!(scale[c] > 0) || !std::isfinite(scale[c])) return std::nullopt;
    a.col(c) /= scale[c];  // scaled columns keep the system well conditioned
  }
  const Eigen::MatrixXd g = a.transpose() * a;
  const Eigen::VectorXd rhs = a.transpose() * Eigen::VectorXd::Ones(k);
  // Columns too close to parallel to tell their coefficients apart.
  if (columns > 1 && !(g.determinant() > 1e-12 * g.diagonal().prod())) return std::nullopt;
  const Eigen::VectorXd x = columns == 1 ? Eigen::VectorXd(rhs / g(0, 0)) : Eigen::VectorXd(g.ldlt().solve(rhs));
  for (int c = 0; c < columns; ++c)
    if (!(x[c] > 0) || !std::isfinite(x[c])) return std::nullopt;
  int col = 0;
  e.a0 = x[col] / scale[col];
  ++col;
  if (s.lower) e.d = x[col] / scale[col], ++col;
  if (s.constant) e.c = x[col] / scale[col];
  score(e, d);
  return e;
}

std::optional<equation> fit_nonlinear(const series& d, const equation& start) {
  const layout lay(start.form);
  relative_residuals f{d, start, lay};
  Eigen::VectorXd x = pack(start, lay);
  if (!x.allFinite()) return std::nullopt;
  Eigen::LevenbergMarquardt<relative_residuals> lm(f);
  lm.parameters.maxfev = 100 * (lay.size + 1);
  lm.parameters.ftol = 1e-10;
  lm.parameters.xtol = 1e-10;
  lm.minimize(x);
  if (!x.allFinite()) return std::nullopt;
  auto e = unpack(start, lay, x);
  // Every metric fitted is a cost (time, energy, bytes), which does not fall as n grows: a
  // decreasing factor (a base below 1, a negative free exponent) is noise fitted, never a class.
  if ((e.form.exp_term && e.a2 < 1) || (e.form.free_a1 && e.a1 < 0) || (e.form.free_a5 && e.a5 < 0)) return std::nullopt;
  if (e.form.exp_term) {
    // An exponential factor that does not even double over the data, or whose base is within 1%
    // of 1 (e^(2e-8 n) over n up to 1e9 is the curvature of a polynomial's data, and extrapolates
    // wildly), is a polynomial in disguise.
    if (std::abs(std::log(e.a2)) < std::log(1.01)) return std::nullopt;
    const auto sizes = d.sizes();
    auto h = [&](double n) { return std::pow(n, e.a3) * (e.a4 != 0 ? std::pow(std::log2(n), e.a4) : 1.0); };
    if (std::abs(std::log(e.a2) * (h(sizes.back()) - h(sizes.front()))) < std::log(2.0)) return std::nullopt;
  }
  score(e, d);
  if (!std::isfinite(e.mse)) return std::nullopt;
  return e;
}

// A starting point for an exponential shape: ln y - a1 ln n = ln a0 + ln(a2) h(n), by ordinary
// least squares in log space (exact when there is no constant).
equation exponential_start(const series& d, const shape& s) {
  equation e = equation::of(s);
  double sh = 0, sz = 0, shh = 0, shz = 0;
  const double k = static_cast<double>(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double n = d.n[i], l = std::log2(n);
    const double h = std::pow(n, s.a3) * (s.a4 != 0 ? std::pow(l, s.a4) : 1.0);
    const double z = std::log(d.y[i]) - s.a1 * std::log(n);
    sh += h, sz += z, shh += h * h, shz += h * z;
  }
  const double det = k * shh - sh * sh;
  const double b = det > 0 ? (k * shz - sh * sz) / det : 0.0;
  e.a2 = std::exp(b);
  e.a0 = std::exp((sz - b * sh) / k);
  return e;
}

bool better(const std::optional<equation>& a, const std::optional<equation>& b) { return a && (!b || a->mse < b->mse); }

}  // namespace

// With a constant or a lower-order term, the leading term must carry at least 5% of the value at
// three sizes or more: a term that only shows at the largest size or two fits that point's noise,
// not a growth. So must the lower-order term, else it is the shape without it. And the constant
// must carry at least 1% of the value somewhere, else it is the shape without it.
bool identified(const equation& e, const std::vector<double>& sizes) {
  if (!e.form.constant && !e.form.lower) return true;
  int leading = 0, lower = 0;
  for (double n : sizes) {
    const double t = std::exp(e.log_term(n)), value = e(n);
    leading += t >= 0.05 * value;
    lower += std::abs(e.lower_term(n)) >= 0.05 * value;
  }
  if (leading < 3 || (e.form.lower && lower < 3)) return false;
  return !e.form.constant || e.c >= 0.01 * e(sizes.front());
}

std::vector<double> series::sizes() const {
  std::vector<double> s = n;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

std::vector<double> series::means() const {
  std::map<double, std::pair<double, int>> acc;
  for (std::size_t i = 0; i < n.size(); ++i) {
    acc[n[i]].first += y[i];
    acc[n[i]].second++;
  }
  std::vector<double> out;
  for (const auto& [size, a] : acc) out.push_back(a.first / a.second);
  return out;
}

std::pair<std::vector<double>, std::vector<double>> series::log_log() const {
  std::map<double, std::pair<double, int>> acc;
  for (std::size_t i = 0; i < size(); ++i) {
    if (!(y[i] > 0) || !(n[i] > 0)) continue;
    acc[n[i]].first += std::log(y[i]);
    acc[n[i]].second++;
  }
  std::pair<std::vector<double>, std::vector<double>> out;
  for (const auto& [size, a] : acc) {
    out.first.push_back(std::log(size));
    out.second.push_back(a.first / a.second);
  }
  return out;
}

series series::within(double lo, double hi) const {
  series s;
  for (std::size_t i = 0; i < n.size(); ++i)
    if (n[i] >= lo && n[i] <= hi) s.add(n[i], y[i]);
  return s;
}

void score(equation& e, const series& d) {
  double ss = 0, sa = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double r = e(d.n[i]) / d.y[i] - 1;
    ss += r * r;
    sa += std::abs(r);
  }
  const double k = static_cast<double>(std::max<std::size_t>(d.size(), 1));
  e.mse = ss / k;
  e.mae = sa / k;
  e.max_rel_err = 0;
  const auto sizes = d.sizes();
  const auto means = d.means();
  for (std::size_t i = 0; i < sizes.size(); ++i) e.max_rel_err = std::max(e.max_rel_err, std::abs(e(sizes[i]) / means[i] - 1));
  if (!std::isfinite(e.mse)) e.mse = e.mae = e.max_rel_err = INFINITY;
}

std::optional<equation> fit_shape(const series& d, const equation& start) {
  const auto& s = start.form;
  if (!s.free_a1 && !s.free_a5 && !s.exp_term) return fit_linear(d, s);
  return fit_nonlinear(d, start);
}

namespace {

/// An exponential shape fitted from its start; with a constant, from several starts for it (a
/// share of the smallest value), the best kept.
std::optional<equation> fit_exponential(const series& d, const shape& s) {
  const auto start = exponential_start(d, s);
  if (!s.constant) return fit_nonlinear(d, start);
  std::optional<equation> fit;
  const double ymin = *std::min_element(d.y.begin(), d.y.end());
  for (double share : {0.01, 0.3, 0.8}) {
    auto st = start;
    st.c = share * ymin;
    if (auto e = fit_nonlinear(d, st); better(e, fit)) fit = e;
  }
  return fit;
}

}  // namespace

std::vector<equation> fit_family(const series& d, const family_options& o) {
  const auto sizes = d.sizes();
  const int m = static_cast<int>(sizes.size());
  const bool logs_ok = !sizes.empty() && sizes.front() >= 2;  // log2(1) = 0 makes log terms degenerate
  std::map<std::string, equation> best;                       // one fit per shape
  // A free exponent that lands on a lattice value is that lattice shape, fitted already.
  auto on_lattice = [](double a) { return std::abs(a - std::round(a * 2) / 2) < 1e-3; };
  auto consider = [&](const std::optional<equation>& e) {
    if (!e || e->coefficient_count() >= m || !identified(*e, sizes)) return;
    if ((e->form.free_a1 && on_lattice(e->a1)) || (e->form.free_a5 && on_lattice(e->a5))) return;
    auto key = e->form.key();
    auto it = best.find(key);
    if (it == best.end() || e->mse < it->second.mse) best[key] = *e;
  };
  auto allowed = [&](const shape& s) { return s.coefficient_count() < m && (logs_ok || !uses_logs(s)); };

  // The lattice: exponents of n and of log n in steps of one half, each with and without c.
  std::vector<equation> lattice;
  for (double a1 = 0; a1 <= o.max_n_exponent + 1e-9; a1 += 0.5)
    for (double a5 = 0; a5 <= o.max_log_exponent + 1e-9; a5 += 0.5)
      for (bool c : {false, true}) {
        shape s{.a1 = a1, .a5 = a5, .constant = c};
        if ((a1 == 0 && a5 == 0 && c) || !allowed(s)) continue;
        if (auto e = fit_linear(d, s)) {
          lattice.push_back(*e);
          consider(e);
        }
      }
  std::sort(lattice.begin(), lattice.end(), [](const auto& a, const auto& b) { return a.mse < b.mse; });

  // Exponential terms: a0 · a2^h(n) (+ c) for h = n, √n, n log n; then with a free power of n.
  std::vector<equation> exponentials;
  if (o.exponential) {
    for (auto [a3, a4] : {std::pair{1.0, 0.0}, {0.5, 0.0}, {1.0, 1.0}})
      for (bool c : {false, true}) {
        shape s{.exp_term = true, .a3 = a3, .a4 = a4, .constant = c};
        if (!allowed(s)) continue;
        if (auto fit = fit_exponential(d, s)) {
          exponentials.push_back(*fit);
          consider(fit);
        }
      }
  }

  // Free exponents, refined from the best lattice fits with and without c (several starts).
  if (o.free_exponents) {
    for (bool c : {false, true}) {
      int starts = 0;
      for (const auto& base : lattice) {
        if (base.form.constant != c || starts >= 3) continue;
        ++starts;
        for (bool free5 : {false, true}) {
          auto st = base;
          (free5 ? st.form.free_a5 : st.form.free_a1) = true;
          if (allowed(st.form)) consider(fit_nonlinear(d, st));
        }
      }
    }
    for (const auto& base : exponentials) {
      if (base.a3 != 1 || base.a4 != 0) continue;
      auto st = base;
      st.form.free_a1 = true;
      if (allowed(st.form)) consider(fit_nonlinear(d, st));
    }
  }

  std::vector<equation> out;
  for (auto& [key, e] : best) out.push_back(std::move(e));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.mse < b.mse; });
  return out;
}

}  // namespace ema::fit
