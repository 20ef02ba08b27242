#include "analysis/scaling.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "analysis/class_set.hpp"
#include "core/format.hpp"

namespace ema::fit {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

double class_value(const theta_class& c, double n) { return std::pow(n, c.n) * (c.log != 0 ? std::pow(std::log2(n), c.log) : 1.0); }

/// One point per (n, p): the mean of its replicates.
struct cell {
  double n, p, y;
};

std::vector<cell> cells_of(const scaling_series& d) {
  std::map<std::pair<double, double>, std::pair<double, int>> sums;
  for (std::size_t i = 0; i < d.size(); ++i) {
    auto& s = sums[{d.n[i], d.p[i]}];
    s.first += d.y[i];
    ++s.second;
  }
  std::vector<cell> out;
  for (const auto& [k, s] : sums) out.push_back({k.first, k.second, s.first / s.second});
  return out;
}

/// The relative standard error of a cell's mean, the median over cells with replicates; NaN when none.
double replicate_noise_of(const scaling_series& d) {
  std::map<std::pair<double, double>, std::vector<double>> by;
  for (std::size_t i = 0; i < d.size(); ++i) by[{d.n[i], d.p[i]}].push_back(d.y[i]);
  std::vector<double> spreads;
  for (const auto& [k, v] : by) {
    if (v.size() < 2) continue;
    double m = 0, ss = 0;
    for (double x : v) m += x;
    m /= static_cast<double>(v.size());
    for (double x : v) ss += (x - m) * (x - m);
    if (m > 0) spreads.push_back(std::sqrt(ss / static_cast<double>(v.size() - 1)) / m / std::sqrt(static_cast<double>(v.size())));
  }
  if (spreads.empty()) return nan;
  std::nth_element(spreads.begin(), spreads.begin() + static_cast<std::ptrdiff_t>(spreads.size() / 2), spreads.end());
  return spreads[spreads.size() / 2];
}

/// The columns of a model at a cell, over the value (least squares on relative error).
Eigen::VectorXd row_of(const work_span_model& m, const cell& c) {
  Eigen::VectorXd r(m.coefficient_count());
  int k = 0;
  r[k++] = class_value(m.work, c.n) / c.p / c.y;
  if (m.has_span) r[k++] = class_value(m.span, c.n) / c.y;
  if (m.constant) r[k++] = 1 / c.y;
  if (m.overhead) r[k++] = std::log2(c.p) / c.y;
  return r;
}

/// Least squares of the model's coefficients on `cells` (all but those at size `skip`); false when a
/// coefficient is not positive (the shape without that term says the same) or the columns are near
/// parallel.
bool solve(work_span_model& m, const std::vector<cell>& cells, double skip = -1) {
  const int k = m.coefficient_count();
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(k, k);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(k), scale = Eigen::VectorXd::Zero(k);
  std::vector<Eigen::VectorXd> rows;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].n == skip) continue;
    rows.push_back(row_of(m, cells[i]));
    scale = scale.cwiseMax(rows.back().cwiseAbs());
  }
  if ((scale.array() <= 0).any() || !scale.allFinite()) return false;
  for (auto& r : rows) {
    r = r.cwiseQuotient(scale);
    g += r * r.transpose();
    rhs += r;
  }
  if (k > 1 && !(g.determinant() > 1e-12 * g.diagonal().prod())) return false;
  const Eigen::VectorXd x = g.ldlt().solve(rhs).cwiseQuotient(scale);
  if (!x.allFinite() || (x.array() <= 0).any()) return false;
  int i = 0;
  m.w = x[i++];
  m.d = m.has_span ? x[i++] : 0;
  m.c = m.constant ? x[i++] : 0;
  m.o = m.overhead ? x[i++] : 0;
  return true;
}

/// Each term must carry at least 2% of the value at some cell (else it fits one point's noise).
bool identified(const work_span_model& m, const std::vector<cell>& cells) {
  bool span = !m.has_span, constant = !m.constant, overhead = !m.overhead;
  for (const auto& c : cells) {
    const double t = m(c.n, c.p);
    span = span || m.d * class_value(m.span, c.n) >= 0.02 * t;
    constant = constant || m.c >= 0.02 * t;
    overhead = overhead || m.o * std::log2(c.p) >= 0.02 * t;
  }
  return span && constant && overhead;
}

/// Held-out errors of ln T, each size left out in turn with all its processor counts (a W's class is
/// about n: the cells of one size share its cache and its moment on the machine, so they are not
/// independent evidence), as each size's mean squared error over its cells, ascending in n;
/// nullopt when a fold cannot be fitted.
std::optional<std::vector<double>> held_out(const work_span_model& shape, const std::vector<cell>& cells, const std::vector<double>& sizes) {
  std::vector<double> e(sizes.size(), 0);
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    auto m = shape;
    if (!solve(m, cells, sizes[s])) return std::nullopt;
    int count = 0;
    for (const auto& c : cells) {
      if (c.n != sizes[s]) continue;
      const double pr = m(c.n, c.p);
      if (!(pr > 0) || !std::isfinite(pr)) return std::nullopt;
      e[s] += std::pow(std::log(c.y / pr), 2);
      ++count;
    }
    e[s] /= count;
  }
  return e;
}

double mean(const std::vector<double>& e) {
  double s = 0;
  for (double x : e) s += x;
  return e.empty() ? nan : s / static_cast<double>(e.size());
}

std::string d_text(const work_span_model& m) { return m.has_span ? m.span.text() : std::string("none"); }

/// The isoefficiency growth of W with p from the classes (asymptotically): E = (W + D)/(W + p·D)
/// held fixed needs W(n)/D(n) ∝ p. With W = n^a log^b n and D = n^a' log^b' n, a > a': n ∝
/// p^(1/(a−a')) · log(p)^(−(b−b')/(a−a')), so W ∝ p^(a/(a−a')) · log(p)^(b − a(b−b')/(a−a')).
/// Without D any n holds any efficiency (nothing is lost to p).
std::optional<theta_class> iso_class(const work_span_model& m) {
  // o · log p on each of p processors: W must grow as p log p to keep it a fixed share.
  const theta_class by_overhead{.n = 1, .log = 1};
  if (!m.has_span) return m.overhead ? by_overhead : theta_class{};
  const double a = m.work.n, b = m.work.log, a2 = m.span.n, b2 = m.span.log;
  if (!(a > a2)) return std::nullopt;  // W/D grows by a log factor at most: exponential or never
  const double k = a - a2;
  theta_class t;
  t.n = a / k;
  t.log = b - a * (b - b2) / k;
  if (std::abs(t.log) < 1e-9) t.log = 0;
  if (m.overhead && (by_overhead.n > t.n || (by_overhead.n == t.n && by_overhead.log > t.log))) return by_overhead;
  return t;
}

/// E(n, p) from the model: T(n, 1) / (p · T(n, p)).
double efficiency(const work_span_model& m, double n, double p, double base = 1) { return m(n, base) / (p / base * m(n, p)); }

/// The n at which the model's efficiency on p processors is `target`, by bisection on ln n;
/// nullopt where W/D does not reach it below 1e300.
std::optional<double> n_for_efficiency(const work_span_model& m, double p, double target) {
  auto e = [&](double ln_n) { return efficiency(m, std::exp(ln_n), p); };
  // Up to where W(n) stays finite (n^4 overflows past 1e77).
  double lo = std::log(2.0), hi = std::log(1e300) / std::max(1.0, m.work.n + 1);
  if (!(e(hi) >= target)) return std::nullopt;
  if (e(lo) >= target) return 2.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (e(mid) >= target ? hi : lo) = mid;
  }
  return std::exp(hi);
}

}  // namespace

std::vector<double> scaling_series::sizes() const {
  std::set<double> s(n.begin(), n.end());
  return {s.begin(), s.end()};
}
std::vector<double> scaling_series::procs() const {
  std::set<double> s(p.begin(), p.end());
  return {s.begin(), s.end()};
}

double work_span_model::W(double n) const { return w * class_value(work, n); }
double work_span_model::D(double n) const { return has_span ? d * class_value(span, n) + c : 0.0; }

std::string work_span_model::formula() const {
  auto term = [](double coef, const theta_class& c) {
    std::string s = fmt::format("{:.3e}", coef);
    if (c.n != 0) s += c.n == 1 ? " · n" : fmt::format(" · n^{:g}", c.n);
    if (c.log != 0) s += c.log == 1 ? " · log2(n)" : fmt::format(" · log2(n)^{:g}", c.log);
    return s;
  };
  std::string out = fmt::format("W(n) = {}", term(w, work));
  out += has_span ? fmt::format(", D(n) = {}", term(d, span)) : std::string(", D(n) = 0");
  if (constant) out += fmt::format(" + {:.3e}", c);
  if (overhead) out += fmt::format(", overhead {:.3e} · log2(p)", o);
  return out;
}

std::string work_span_model::pair_text() const {
  return fmt::format("W {}, D {}{}", work.text(), d_text(*this), overhead ? ", overhead Θ(log p)" : "");
}

double efficiency_at(const scaling_analysis& a, double n, double p) { return efficiency(a.model(), n, p, a.base_p); }

double karp_flatt(double speedup, double p) { return p > 1 && speedup > 0 ? (1 / speedup - 1 / p) / (1 - 1 / p) : nan; }

std::string p_text(const theta_class& c) {
  auto s = c.text();
  for (auto at = s.find('n'); at != std::string::npos; at = s.find('n', at + 1)) s[at] = 'p';
  return s;
}

scaling_analysis analyze_scaling(const scaling_series& data, const scaling_options& o) {
  for (std::size_t i = 0; i < data.size(); ++i)
    if (!(data.y[i] > 0) || !std::isfinite(data.y[i]) || !(data.n[i] >= 2) || !(data.p[i] >= 1))
      throw std::invalid_argument(fmt::format("a point at n = {}, p = {} has value {}: values must be positive, n at least 2, p at least 1",
                                              data.n[i], data.p[i], data.y[i]));
  scaling_series kept;
  for (std::size_t i = 0; i < data.size(); ++i)
    if (data.n[i] >= o.from) kept.add(data.n[i], data.p[i], data.y[i]);
  const auto sizes = kept.sizes(), procs = kept.procs();
  if (sizes.size() < 3)
    throw std::invalid_argument(fmt::format("{} distinct size{}: a fit in n and p needs at least 3", sizes.size(), sizes.size() == 1 ? "" : "s"));
  if (procs.size() < 2) throw std::invalid_argument("one processor count: a fit in n and p needs at least 2");
  scaling_analysis a;
  a.data = kept;
  if (o.from > 0) a.from = o.from, a.from_why = o.from_why;
  const auto cells = cells_of(kept);
  const double rep = replicate_noise_of(kept);
  a.noise = std::max({std::isfinite(rep) ? rep : 0.0, std::isfinite(o.noise) ? o.noise : 0.0, 0.002});
  const double lo = sizes.front(), hi = sizes.back();

  // Every pair (g, h): W's class g, D's class h at most g's growth, or no D; c beside a growing D.
  std::vector<std::vector<double>> errors;
  for (const auto& [ga, gb] : coarse_classes) {
    if (ga == 0 && gb == 0) continue;
    const theta_class g{.n = ga, .log = gb};
    std::vector<work_span_model> shapes{{.work = g}};
    for (const auto& [ha, hb] : coarse_classes) {
      const theta_class h{.n = ha, .log = hb};
      if (class_growth(h, lo, hi) > class_growth(g, lo, hi) + 1e-9) continue;
      shapes.push_back({.work = g, .span = h, .has_span = true});
      if (ha != 0 || hb != 0) shapes.push_back({.work = g, .span = h, .has_span = true, .constant = true});
    }
    const auto plain = shapes.size();
    for (std::size_t i = 0; i < plain; ++i) {
      auto with = shapes[i];
      with.overhead = true;
      shapes.push_back(with);
    }
    for (auto m : shapes) {
      if (m.coefficient_count() >= static_cast<int>(cells.size() - cells.size() / sizes.size())) continue;
      if (!solve(m, cells) || !identified(m, cells)) continue;
      auto e = held_out(m, cells, sizes);
      if (!e) continue;
      m.cv = mean(*e);
      a.pairs.push_back(m);
      errors.push_back(std::move(*e));
    }
  }
  if (a.pairs.empty()) throw std::invalid_argument("no model W(n)/p + D(n) of the coarse classes fits the points with positive coefficients");
  {
    std::vector<std::size_t> order(a.pairs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return a.pairs[x].cv < a.pairs[y].cv; });
    std::vector<work_span_model> pairs;
    std::vector<std::vector<double>> errs;
    for (auto i : order) pairs.push_back(a.pairs[i]), errs.push_back(errors[i]);
    a.pairs = std::move(pairs);
    errors = std::move(errs);
  }
  // Evidence against a pair, as the class set weighs it (class_set.cpp, evidence_of).
  auto evidence = [&](std::size_t k, std::size_t against, std::size_t skip) {
    double s = 0;
    for (std::size_t i = 0; i < errors[k].size(); ++i)
      if (i != skip) s += errors[k][i] - errors[against][i];
    return s / std::max(a.noise * a.noise, a.pairs[against].cv);
  };
  auto excluded = [&](std::size_t k, std::size_t against) {
    if (evidence(k, against, SIZE_MAX) <= o.exclude) return false;
    for (std::size_t j = 0; j < errors[k].size(); ++j)
      if (evidence(k, against, j) <= o.exclude) return false;
    return true;
  };

  // The work: no W growing slower than it, of the pairs the data leave.
  const double floor = work_growth(o.work, lo, hi);
  auto below = [&](const work_span_model& m) { return std::isfinite(floor) && class_growth(m.work, lo, hi) < floor - 0.02; };
  a.chosen = 0;
  if (below(a.pairs[0])) {
    std::optional<std::size_t> at_work;
    for (std::size_t k = 1; k < a.pairs.size(); ++k)
      if (!below(a.pairs[k]) && !excluded(k, 0) && (!at_work || class_growth(a.pairs[k].work, lo, hi) < class_growth(a.pairs[*at_work].work, lo, hi)))
        at_work = k;
    if (at_work) {
      a.chosen = *at_work;
      a.notes.push_back(
          fmt::format("{} predicts the points as well, but its W grows slower than the work the variant must do", a.pairs[0].pair_text()));
    }
  }
  // Parsimony, as the class set's (class_set.cpp, choose): of the pairs the data cannot tell from
  // the one chosen, W with the same power of n and a smaller power of log n (never below the work);
  // then, with that W, D likewise (or none, for a D that is a log factor alone).
  {
    const auto lead = a.chosen;
    for (std::size_t k = 0; k < a.pairs.size(); ++k) {
      const auto& c = a.pairs[k];
      const auto& now = a.pairs[a.chosen];
      if (c.work.n == now.work.n && c.work.log < now.work.log && !below(c) && !excluded(k, lead)) a.chosen = k;
    }
    const auto with_w = a.chosen;
    for (std::size_t k = 0; k < a.pairs.size(); ++k) {
      const auto& c = a.pairs[k];
      const auto& now = a.pairs[a.chosen];
      if (!(c.work == now.work) || !c.has_span || !now.has_span || excluded(k, with_w)) continue;
      if (c.span.n == now.span.n && c.span.log < now.span.log) a.chosen = k;
    }
  }
  const auto& chosen = a.pairs[a.chosen];
  std::set<std::string> w_rivals, d_rivals;
  for (std::size_t k = 0; k < a.pairs.size(); ++k) {
    auto& m = a.pairs[k];
    if (k == a.chosen) continue;
    m.evidence = evidence(k, a.chosen, SIZE_MAX);
    m.excluded = excluded(k, a.chosen);
    if (m.excluded) continue;
    m.below_work = !below(chosen) && below(m);
    if (m.below_work) continue;
    if (!(m.work == chosen.work)) w_rivals.insert(m.work.text());
    if (d_text(m) != d_text(chosen)) d_rivals.insert(d_text(m));
  }

  // Fitted without the largest size: its prediction there at every p.
  std::vector<cell> lower;
  for (const auto& c : cells)
    if (c.n < hi) lower.push_back(c);
  if (sizes.size() >= 4) {
    auto m = chosen;
    if (m.coefficient_count() < static_cast<int>(lower.size()) && solve(m, lower)) {
      double worst = 0;
      for (const auto& c : cells)
        if (c.n == hi) worst = std::max(worst, std::abs(m(c.n, c.p) / c.y - 1));
      a.held_out_miss = worst;
      a.held_out_n = hi;
    }
  }

  // The verdicts on W and D.
  auto judge_part = [&](verdict& v, const std::set<std::string>& rivals, const char* part) {
    v.noise = a.noise;
    if (!rivals.empty()) {
      std::string names;
      for (const auto& r : rivals) names += (names.empty() ? "" : ", ") + r;
      v.level = verdict_level::tentative;
      v.reasons.push_back(fmt::format("{} not excluded by held-out prediction within the noise: {}", part, names));
    }
    if (sizes.size() < 4) {
      v.level = verdict_level::tentative;
      v.reasons.push_back(fmt::format("only {} sizes", sizes.size()));
    }
    if (!o.unsettled.empty()) {
      v.level = verdict_level::tentative;
      v.reasons.push_back(o.unsettled);
    }
    if (procs.size() < 3) {
      v.level = verdict_level::tentative;
      v.reasons.push_back(fmt::format("only {} processor counts", procs.size()));
    }
    if (a.held_out_miss && *a.held_out_miss > std::max(6 * a.noise, 0.10)) {
      v.level = verdict_level::tentative;
      v.reasons.push_back(fmt::format("fitted without n = {}, the model predicts it {} off", format_size(hi), percent(*a.held_out_miss)));
    }
  };
  judge_part(a.work_verdict, w_rivals, "W(n):");
  judge_part(a.span_verdict, d_rivals, "D(n):");
  if (below(chosen)) {
    a.work_verdict.level = verdict_level::tentative;
    a.work_verdict.reasons.push_back(fmt::format(
        "W {} grows slower than the work the variant must do (n^{:.2f} over these sizes): the points are not yet where the work sets the cost",
        chosen.work.text(), floor));
  }
  a.work_rivals.assign(w_rivals.begin(), w_rivals.end());
  a.span_rivals.assign(d_rivals.begin(), d_rivals.end());

  // The measured table at the largest size measured at the smallest processor count and another:
  // speedups against that count p0 (1 for threads; the smallest partition for SMs), efficiency and
  // Karp–Flatt in units of it (q = p / p0 processors).
  std::map<double, std::map<double, double>> by_n;  // n -> p -> mean
  for (const auto& c : cells) by_n[c.n][c.p] = c.y;
  const double p0 = procs.front();
  a.base_p = p0;
  for (auto it = by_n.rbegin(); it != by_n.rend(); ++it) {
    if (!it->second.count(p0) || it->second.size() < 2) continue;
    a.table_n = it->first;
    const double t1 = it->second.at(p0);
    for (const auto& [p, t] : it->second) {
      scaling_row r{.p = p, .measured = t, .predicted = chosen(a.table_n, p), .speedup = t1 / t};
      const double q = p / p0;
      r.efficiency = r.speedup / q;
      r.cost = p * t;
      if (q > 1) r.karp_flatt = karp_flatt(r.speedup, q);
      a.rows.push_back(r);
    }
    break;
  }
  if (a.rows.empty()) a.notes.push_back(fmt::format("no size was measured at p = {:g} and another p: no measured speedup", p0));

  // From the model at the largest size.
  const double w_hi = chosen.W(hi), d_hi = chosen.D(hi);
  a.parallelism = d_hi > 0 ? (w_hi + d_hi) / d_hi : INFINITY;
  a.p_half = INFINITY;
  if (d_hi > 0 || chosen.overhead) {
    // E falls as p grows (p · T(n, p) = W + p·D + p·o·log p): bisection on ln p up to 2^60, the
    // efficiency against the smallest count measured, as the table's.
    double lo_p = std::log(p0), hi_p = 60 * std::log(2.0);
    if (efficiency(chosen, hi, std::exp(hi_p), p0) < 0.5) {
      for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo_p + hi_p);
        (efficiency(chosen, hi, std::exp(mid), p0) >= 0.5 ? lo_p : hi_p) = mid;
      }
      a.p_half = std::exp(lo_p);
    }
  }
  if (const auto iso = iso_class(chosen)) {
    a.iso.exists = true;
    a.iso.growth = *iso;
    if (chosen.has_span || chosen.overhead)
      for (double p : {16.0, 64.0, 256.0, 1024.0})
        if (const auto n = n_for_efficiency(chosen, p, a.iso.target)) a.iso.sizes.push_back({p, *n});
  }
  try {
    a.pmnf = fit_normal_form(kept);
  } catch (const std::invalid_argument&) {
    // no hypothesis of the normal form fits: the work-span model stands alone
  }
  return a;
}

std::string scaling_text(const scaling_analysis& a, const std::string& unit) {
  const auto& m = a.model();
  auto value = [&](double x) { return unit == "s" ? format_time(x) : fmt::format("{:.4g} {}", x, unit); };
  auto part = [](const char* name, const std::string& cls, const verdict& v) {
    std::string s = fmt::format("  {} {}, {}", name, cls, to_string(v.level));
    for (const auto& r : v.reasons) s += fmt::format("\n    - {}", r);
    return s + "\n";
  };
  std::string out = a.from > 0 ? fmt::format("  fitted from n = {}: {}\n", format_size(a.from), a.from_why) : std::string();
  out += fmt::format("  model: T(n, p) = W(n)/p + D(n){}; {} (held-out error {:.1f}%, σ = {})\n", m.overhead ? " + o·log2(p)" : "", m.formula(),
                     100 * std::sqrt(m.cv), percent(a.noise));
  out += part("work W(n):", m.work.text(), a.work_verdict);
  out += part("span D(n):",
              m.has_span ? m.span.text() + " (what does not divide among p: a serial part, a barrier, a shared bus)"
                         : "none (all of the cost divides among p)",
              a.span_verdict);
  if (m.overhead)
    out += fmt::format("  overhead: {} · log2(p), a cost of the processors themselves (a fork and join, barriers): {} at p = 16\n", value(m.o),
                       value(4 * m.o));
  for (const auto& n : a.notes) out += fmt::format("  note: {}\n", n);
  if (a.held_out_miss)
    out += fmt::format("  held out n = {}: the model of the smaller sizes predicts it within {} at every p\n", format_size(a.held_out_n),
                       percent(*a.held_out_miss));
  const double hi = a.data.sizes().back();
  const auto against = a.base_p == 1 ? std::string() : fmt::format(" (against p = {:g})", a.base_p);
  if (std::isfinite(a.parallelism))
    out += fmt::format("  at n = {}: parallelism T(n,1)/D(n) = {:.3g}; efficiency{} ≥ 0.5 up to p = {:.3g}\n", format_size(hi), a.parallelism,
                       against, a.p_half);
  else if (std::isfinite(a.p_half))
    out += fmt::format("  at n = {}: efficiency{} ≥ 0.5 up to p = {:.3g}\n", format_size(hi), against, a.p_half);
  else
    out += fmt::format("  at n = {}: no part that p does not divide was found; efficiency stays near 1 over the measured p\n", format_size(hi));
  if (a.iso.exists && (m.has_span || m.overhead)) {
    out += fmt::format("  isoefficiency (E = {:g}): W must grow as {}", a.iso.target, p_text(a.iso.growth));
    std::string at;
    for (const auto& [p, n] : a.iso.sizes) at += fmt::format("{}p = {:g}: n ≈ {}", at.empty() ? "" : ", ", p, format_size(n));
    out += at.empty() ? "\n" : fmt::format(" ({})\n", at);
  } else if (!a.iso.exists) {
    out += "  isoefficiency: none — D grows as fast as W (up to a log factor), so no n holds the efficiency as p grows\n";
  }
  if (a.pmnf) {
    const auto& f = a.pmnf->best;
    out += fmt::format("  normal form (Extra-P's, terms n^a·log^b n·p^c·log^d p): T(n, p) = {} (held-out error {:.1f}%; the model's above {:.1f}%)\n",
                       f.formula(), 100 * std::sqrt(f.cv), 100 * std::sqrt(m.cv));
  }
  if (!a.rows.empty()) {
    out += a.base_p == 1 ? fmt::format("  measured at n = {}:\n", format_size(a.table_n))
                         : fmt::format("  measured at n = {} (speedup, efficiency and Karp–Flatt against p = {:g}, in units of it):\n",
                                       format_size(a.table_n), a.base_p);
    out += fmt::format("  {:>6}  {:>12}  {:>12}  {:>8}  {:>10}  {:>11}\n", "p", "time", "model", "speedup", "efficiency", "Karp–Flatt");
    for (const auto& r : a.rows)
      out += fmt::format("  {:>6g}  {:>12}  {:>12}  {:>7.2f}x  {:>10.2f}  {:>11}\n", r.p, value(r.measured), value(r.predicted), r.speedup,
                         r.efficiency, r.karp_flatt ? fmt::format("{:.3f}", *r.karp_flatt) : std::string("—"));
  }
  return out;
}

nlohmann::json to_json(const scaling_analysis& a) {
  auto finite = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  const auto& m = a.model();
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& p : a.pairs)
    pairs.push_back({{"work", p.work.to_json()},
                     {"span", p.has_span ? p.span.to_json() : nlohmann::json(nullptr)},
                     {"constant", p.constant},
                     {"overhead", p.overhead},
                     {"formula", p.formula()},
                     {"held_out_mse", finite(p.cv)},
                     {"evidence", finite(p.evidence)},
                     {"excluded", p.excluded},
                     {"below_work", p.below_work}});
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : a.rows)
    rows.push_back({{"p", r.p},
                    {"measured", r.measured},
                    {"predicted", r.predicted},
                    {"speedup", r.speedup},
                    {"efficiency", r.efficiency},
                    {"cost", r.cost},
                    {"karp_flatt", r.karp_flatt ? nlohmann::json(*r.karp_flatt) : nlohmann::json(nullptr)}});
  nlohmann::json w_rivals = nlohmann::json::array(), d_rivals = nlohmann::json::array();
  for (const auto& c : a.work_rivals) w_rivals.push_back(c);
  for (const auto& c : a.span_rivals) d_rivals.push_back(c);
  nlohmann::json iso_sizes = nlohmann::json::array();
  for (const auto& [p, n] : a.iso.sizes) iso_sizes.push_back({{"p", p}, {"n", n}});
  return {{"model", m.formula()},
          {"work", {{"theta", m.work.to_json()}, {"verdict", a.work_verdict.to_json()}, {"not_excluded", w_rivals}}},
          {"span",
           {{"theta", m.has_span ? m.span.to_json() : nlohmann::json(nullptr)}, {"verdict", a.span_verdict.to_json()}, {"not_excluded", d_rivals}}},
          {"noise", a.noise},
          {"held_out", a.held_out_miss ? nlohmann::json{{"n", a.held_out_n}, {"max_rel_err", *a.held_out_miss}} : nlohmann::json(nullptr)},
          {"parallelism", finite(a.parallelism)},
          {"p_efficiency_half", finite(a.p_half)},
          {"isoefficiency",
           a.iso.exists
               ? nlohmann::json{{"efficiency", a.iso.target}, {"theta", a.iso.growth.to_json()}, {"text", p_text(a.iso.growth)}, {"sizes", iso_sizes}}
               : nlohmann::json(nullptr)},
          {"table_n", a.table_n},
          {"base_p", a.base_p},
          {"overhead_log_p", m.overhead ? nlohmann::json(m.o) : nlohmann::json(nullptr)},
          {"from", a.from > 0 ? nlohmann::json{{"n", a.from}, {"why", a.from_why}} : nlohmann::json(nullptr)},
          {"rows", rows},
          {"pairs", pairs},
          {"normal_form", a.pmnf ? to_json(a.pmnf->best) : nlohmann::json(nullptr)},
          {"notes", a.notes}};
}

}  // namespace ema::fit
