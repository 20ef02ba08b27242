#include "analysis/groups.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ema::fit {
namespace {

// Relative difference that stays meaningful where a value overflows: two infinities of the same
// growth are compared in log space.
double relative_difference(const equation& e, const equation& ref, double n) {
  const double a = e(n), b = ref(n);
  if (std::isfinite(a) && std::isfinite(b) && b > 0) return std::abs(a / b - 1);
  const double la = e.log_term(n), lb = ref.log_term(n);
  if (!std::isfinite(la) || !std::isfinite(lb)) return INFINITY;
  return std::abs(std::expm1(la - lb));
}

// Exponents off the integer lattice (halves), the mark of a less simple equation.
int halves(const equation& e) {
  auto half = [](double x) { return std::abs(x - std::round(x)) > 1e-9; };
  return half(e.a1) + half(e.a5) + (e.form.exp_term ? half(e.a3) + half(e.a4) : 0);
}

// Whether `a` makes a better best equation than `b` (see best_rule).
bool simpler(const equation& a, const equation& b, best_rule rule) {
  if (rule == best_rule::ema) {
    if (a.coefficient_count() != b.coefficient_count()) return a.coefficient_count() < b.coefficient_count();
    return a.mae < b.mae;
  }
  const int ca = a.coefficient_count() - a.form.constant, cb = b.coefficient_count() - b.form.constant;
  if (ca != cb) return ca < cb;
  if (halves(a) != halves(b)) return halves(a) < halves(b);
  if (a.form.constant != b.form.constant) return !a.form.constant;
  // Of two equally simple equations with the same power of n, the smaller power of log n.
  const auto ta = a.theta(), tb = b.theta();
  if (ta.n == tb.n && !ta.exp_base && !tb.exp_base && ta.log != tb.log) return ta.log < tb.log;
  return a.mae < b.mae;
}

}  // namespace

bool coarse(const equation& e) {
  if (e.form.free_a1 || e.form.free_a5) return false;
  if (e.form.exp_term) return e.form.a3 == 1 && e.form.a4 == 0 && e.a1 == 0 && e.a5 == 0;
  constexpr std::pair<double, double> classes[] = {{0, 0}, {0, 1}, {0.5, 0}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0}, {4, 0}};
  return std::any_of(std::begin(classes), std::end(classes), [&](const auto& c) { return e.a1 == c.first && e.a5 == c.second; });
}

std::optional<double> find_tie_breaker(const equation& e, const equation& ref, double largest, double threshold) {
  constexpr int per_octave = 8, octaves = 32;
  for (int k = 1; k <= per_octave * octaves; ++k) {
    const double n = std::ceil(largest * std::exp2(static_cast<double>(k) / per_octave));
    if (n > 9.2e18) break;
    if (relative_difference(e, ref, n) >= threshold) return n;
  }
  return std::nullopt;
}

double max_relative_difference(const equation& e, const equation& reference, const std::vector<double>& sizes) {
  double worst = 0;
  for (double n : sizes) worst = std::max(worst, relative_difference(e, reference, n));
  return worst;
}

equation_groups select_groups(std::vector<equation> candidates, const std::vector<double>& sizes, const group_options& o) {
  if (candidates.empty()) throw std::invalid_argument("no equation could be fitted");
  std::stable_sort(candidates.begin(), candidates.end(), [](const equation& a, const equation& b) {
    if (a.mse != b.mse) return a.mse < b.mse;
    return a.coefficient_count() < b.coefficient_count();
  });
  equation_groups g;
  g.candidates = static_cast<int>(candidates.size());
  g.min_error = candidates.front();
  g.best = g.min_error;
  const double largest = sizes.empty() ? 1 : sizes.back();
  auto cost = o.cost ? o.cost : [&](double n) { return g.min_error(n); };
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    const auto& e = candidates[i];
    if (max_relative_difference(e, g.min_error, sizes) >= o.threshold) continue;
    g.equivalent.push_back(e);
    if (simpler(e, g.best, o.rule)) g.best = e;
    tie_break t{e, find_tie_breaker(e, g.min_error, largest, o.threshold), NAN};
    if (t.n) t.cost = cost(*t.n);
    if (t.n && std::isfinite(t.cost) && t.cost <= o.budget)
      g.distinguishable.push_back(std::move(t));
    else
      g.non_distinguishable.push_back(std::move(t));
  }
  // From coarse to fine: a finer class (a fractional power, a log factor past n² log n, a free
  // exponent) is the answer only where it cuts the error several-fold; a bend of a real machine
  // (a cache level, a launch-bound start) otherwise picks one of them for a class.
  if (o.rule == best_rule::parsimony) {
    const auto first = std::find_if(candidates.begin(), candidates.end(), [](const equation& e) { return coarse(e); });
    if (first != candidates.end() && !coarse(g.best) && first->mse <= o.fine_gain * g.min_error.mse) {
      g.best = *first;
      for (const auto& e : candidates)
        if (coarse(e) && max_relative_difference(e, *first, sizes) < o.threshold && simpler(e, g.best, o.rule)) g.best = e;
    }
  }
  return g;
}

}  // namespace ema::fit
