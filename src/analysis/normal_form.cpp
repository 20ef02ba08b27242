#include "analysis/normal_form.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <span>
#include <set>
#include <stdexcept>

#include "analysis/scaling.hpp"

namespace ema::fit {
namespace {

/// Extra-P's exponents of a parameter's polynomial part and its log powers.
constexpr double n_powers[] = {0, 0.25, 1.0 / 3, 0.5, 2.0 / 3, 0.75, 1, 1.25, 4.0 / 3, 1.5, 5.0 / 3, 1.75, 2, 2.25, 7.0 / 3, 2.5, 8.0 / 3, 2.75, 3};
constexpr double n_logs[] = {0, 1, 2};
/// p's, with the negative exponents strong scaling needs.
constexpr double p_powers[] = {-1, -0.5, 0, 0.5, 1};
constexpr double p_logs[] = {0, 1};

struct cell {
  double n, p, y;
};

double lg(double x) { return std::log2(std::max(x, 1.0)); }

/// The fitting of one hypothesis, fast: its columns' values at every cell are given, and the
/// normal equations of relative least squares are summed per size, so that each fold (a size left
/// out) is the whole sum less that size's.
class fitter {
 public:
  using mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 3>;
  using vec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 3, 1>;

  fitter(const std::vector<cell>& cells, const std::vector<double>& sizes) : cells_(cells), sizes_(sizes.size()) {
    for (const auto& c : cells) size_index_.push_back(static_cast<int>(std::lower_bound(sizes.begin(), sizes.end(), c.n) - sizes.begin()));
  }

  /// Fits c0 + Σ x_t · cols[t] to every cell and judges it with each size left out: false where a
  /// fold cannot be fitted or a prediction is not positive; else the coefficients (c0 first) and
  /// the mean squared held-out error of ln T.
  bool run(const std::vector<const double*>& cols, std::vector<double>& coefs, double& cv) const {
    // A negative constant: the same terms without one (c0 = 0).
    return run(cols, coefs, cv, true) || (negative_constant_ && run(cols, coefs, cv, false));
  }

 private:
  bool run(const std::vector<const double*>& cols, std::vector<double>& coefs, double& cv, bool constant) const {
    negative_constant_ = false;
    const int off = constant ? 0 : 1;  // the constant's column left out
    const int k = 1 + static_cast<int>(cols.size()) - off;
    auto column = [&](int t, std::size_t i) { return fitter::column(cols, t + off, i); };
    vec scale = vec::Zero(k);
    for (std::size_t i = 0; i < cells_.size(); ++i)
      for (int t = 0; t < k; ++t) scale[t] = std::max(scale[t], std::abs(column(t, i)) / cells_[i].y);
    if ((scale.array() <= 0).any() || !scale.allFinite()) return false;
    std::vector<mat> gram(sizes_, mat::Zero(k, k));
    std::vector<vec> rhs(sizes_, vec::Zero(k));
    mat all = mat::Zero(k, k);
    vec all_rhs = vec::Zero(k);
    for (std::size_t i = 0; i < cells_.size(); ++i) {
      vec r(k);
      for (int t = 0; t < k; ++t) r[t] = column(t, i) / cells_[i].y / scale[t];
      gram[static_cast<std::size_t>(size_index_[i])] += r * r.transpose();
      rhs[static_cast<std::size_t>(size_index_[i])] += r;
    }
    for (std::size_t s = 0; s < sizes_; ++s) all += gram[s], all_rhs += rhs[s];
    vec x;
    if (!solve(all, all_rhs, scale, x, off)) return false;
    if (constant && x[0] < 0) negative_constant_ = true;
    if ((x.array() < 0).any()) return false;  // a cost is a sum of parts, none negative
    for (std::size_t i = 0; i < cells_.size(); ++i)
      if (!(predict(cols, x, i) > 0)) return false;
    coefs.assign(x.data(), x.data() + x.size());
    double sum = 0;
    for (std::size_t s = 0; s < sizes_; ++s) {
      vec xs;
      if (!solve(all - gram[s], all_rhs - rhs[s], scale, xs, off)) return false;
      for (std::size_t i = 0; i < cells_.size(); ++i) {
        if (size_index_[i] != static_cast<int>(s)) continue;
        const double pr = predict(cols, xs, i);
        if (!(pr > 0) || !std::isfinite(pr)) return false;
        sum += std::pow(std::log(cells_[i].y / pr), 2);
      }
    }
    cv = sum / static_cast<double>(cells_.size());
    return true;
  }

  static double column(const std::vector<const double*>& cols, int t, std::size_t i) {
    return t == 0 ? 1.0 : cols[static_cast<std::size_t>(t - 1)][i];
  }
  double predict(const std::vector<const double*>& cols, const vec& x, std::size_t i) const {
    double v = x[0];
    for (std::size_t t = 0; t < cols.size(); ++t) v += x[static_cast<int>(t) + 1] * cols[t][i];
    return v;
  }
  /// The coefficients, c0 first (0 where `off` left the constant out).
  static bool solve(const mat& g, const vec& b, const vec& scale, vec& x, int off) {
    if (!(g.determinant() > 1e-12 * g.diagonal().prod())) return false;
    const vec y = g.ldlt().solve(b).cwiseQuotient(scale);
    x = vec::Zero(y.size() + off);
    x.tail(y.size()) = y;
    return x.allFinite();
  }
  const std::vector<cell>& cells_;
  mutable bool negative_constant_ = false;
  std::size_t sizes_;
  std::vector<int> size_index_;
};

std::string power_text(const char* x, double e, double l) {
  std::string s;
  auto num = [](double v) {
    for (int den : {1, 2, 3, 4})
      if (std::abs(v * den - std::round(v * den)) < 1e-9)
        return den == 1 ? fmt::format("{:g}", v) : fmt::format("{}/{}", static_cast<int>(std::round(v * den)), den);
    return fmt::format("{:g}", v);
  };
  if (e != 0) s = e == 1 ? std::string(x) : fmt::format("{}^{}", x, num(e));
  if (l != 0) s += (s.empty() ? "" : " · ") + (l == 1 ? fmt::format("log2({})", x) : fmt::format("log2({})^{}", x, num(l)));
  return s;
}

pmnf_term product(const pmnf_term& f, const pmnf_term& g) { return {.a = f.a, .b = f.b, .c = g.c, .d = g.d}; }

}  // namespace

double pmnf_term::value(double n, double p) const {
  return std::pow(n, a) * (b != 0 ? std::pow(lg(n), b) : 1.0) * std::pow(p, c) * (d != 0 ? std::pow(lg(p), d) : 1.0);
}

std::string pmnf_term::text() const {
  const auto np = power_text("n", a, b), pp = power_text("p", c, d);
  if (np.empty() && pp.empty()) return "1";
  return np.empty() ? pp : pp.empty() ? np : np + " · " + pp;
}

double pmnf_model::operator()(double n, double p) const {
  double t = c0;
  for (const auto& x : terms) t += x.coef * x.value(n, p);
  return t;
}

std::string pmnf_model::formula() const {
  std::string s = c0 != 0 || terms.empty() ? fmt::format("{:.3e}", c0) : std::string();
  for (const auto& t : terms)
    s += fmt::format("{}{:.3e} · {}", s.empty() ? "" : t.coef < 0 ? " − " : " + ", s.empty() ? t.coef : std::abs(t.coef), t.text());
  return s;
}

normal_form fit_normal_form(const scaling_series& data) {
  std::map<std::pair<double, double>, std::pair<double, int>> sums;
  for (std::size_t i = 0; i < data.size(); ++i) {
    auto& s = sums[{data.n[i], data.p[i]}];
    s.first += data.y[i];
    ++s.second;
  }
  std::vector<cell> cells;
  for (const auto& [k, s] : sums) cells.push_back({k.first, k.second, s.first / s.second});
  const auto sizes = data.sizes(), procs = data.procs();
  if (sizes.size() < 3 || procs.size() < 2) throw std::invalid_argument("the normal form in n and p needs 3 sizes and 2 counts");
  // Every term of n and of p (Extra-P's search space, p's negative exponents added), and every
  // hypothesis of one or two terms built from them: f(n)g(p); f(n)g(p) + f'(n) (a work and a span);
  // f(n)g(p) + g'(p) (a cost of the processors); f(n) + g(p).
  std::vector<pmnf_term> fs, gs;
  for (const double e : n_powers)
    for (const double l : n_logs) fs.push_back({.a = e, .b = l});
  for (const double e : p_powers)
    for (const double l : p_logs)
      if (e != 0 || l != 0) gs.push_back({.c = e, .d = l});
  auto values = [&](const pmnf_term& t) {
    std::vector<double> v;
    for (const auto& c : cells) v.push_back(t.value(c.n, c.p));
    return v;
  };
  std::vector<std::vector<double>> fv, gv;
  for (const auto& f : fs) fv.push_back(values(f));
  for (const auto& g : gs) gv.push_back(values(g));
  const fitter fit(cells, sizes);
  normal_form out;
  std::vector<double> coefs, fg(cells.size());
  double cv = 0;
  auto keep = [&](std::vector<pmnf_term> terms, const std::vector<const double*>& cols) {
    if (!fit.run(cols, coefs, cv)) return;
    pmnf_model m{.c0 = coefs[0], .terms = std::move(terms), .cv = cv};
    for (std::size_t t = 0; t < m.terms.size(); ++t) m.terms[t].coef = coefs[t + 1];
    out.hypotheses.push_back(std::move(m));
  };
  auto constant = [](const pmnf_term& f) { return f.a == 0 && f.b == 0; };
  for (std::size_t i = 0; i < fs.size(); ++i)
    for (std::size_t j = 0; j < gs.size(); ++j) {
      for (std::size_t c = 0; c < cells.size(); ++c) fg[c] = fv[i][c] * gv[j][c];
      const auto prod = product(fs[i], gs[j]);
      keep({prod}, {fg.data()});
      if (!constant(fs[i])) keep({fs[i], gs[j]}, {fv[i].data(), gv[j].data()});
      for (std::size_t i2 = 0; i2 < fs.size(); ++i2)
        if (i2 != i && !constant(fs[i2])) keep({prod, fs[i2]}, {fg.data(), fv[i2].data()});
      for (std::size_t j2 = 0; j2 < gs.size(); ++j2)
        if (j2 != j && !(constant(fs[i]) && j2 < j)) keep({prod, gs[j2]}, {fg.data(), gv[j2].data()});
    }
  if (out.hypotheses.empty()) throw std::invalid_argument("no hypothesis of the normal form fits the points");
  std::stable_sort(out.hypotheses.begin(), out.hypotheses.end(), [](const auto& x, const auto& y) { return x.cv < y.cv; });
  // Parsimony: one term where it predicts the held-out sizes nearly as well as the best (its error
  // within a quarter of the best's); else the best.
  out.best = out.hypotheses.front();
  for (const auto& h : out.hypotheses)
    if (h.terms.size() == 1 && h.cv <= 1.25 * out.best.cv + 1e-6) {
      out.best = h;
      break;
    }
  return out;
}

nlohmann::json to_json(const pmnf_model& m) {
  nlohmann::json terms = nlohmann::json::array();
  for (const auto& t : m.terms)
    terms.push_back({{"coefficient", t.coef}, {"n", t.a}, {"log_n", t.b}, {"p", t.c}, {"log_p", t.d}, {"text", t.text()}});
  return {{"formula", m.formula()}, {"constant", m.c0}, {"terms", terms}, {"held_out_error", m.cv}};
}

}  // namespace ema::fit
