// EMA's five groups of equations (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2), as the source defines them:
//   - minimum error: the equation with the least mean squared (relative) error;
//   - equivalent: within `threshold` (5%) of the minimum-error equation at every measured size;
//   - distinguishable: equivalent ones that a new run could tell apart from it, because they differ
//     by at least `threshold` at some size; the smallest such size is the tie breaker;
//   - non-distinguishable: equivalent ones whose tie breaker would take longer than the budget
//     allows to run (or that never differ by `threshold`), so in practice equal to it;
//   - best: of the minimum-error equation and its equivalents, the one with the fewest
//     coefficients; ties go to the smallest absolute (relative) error. That is best_rule::ema.
//     The default, best_rule::parsimony, counts EMA's own coefficients (a0..a5, not the constant c
//     EMA lacks) and breaks ties by simplicity before error: exponents on the integer lattice
//     before halves, no constant before a constant, the slower growth before the faster. The data
//     cannot tell equivalent equations apart, and noise alone decides their errors: c + a·log n
//     and b·(log n)^0.5, or c + a·log n and c' + a'·log² n, fit 65 noisy points about equally
//     well. On the synthetic accuracy set (tests/analysis) parsimony finds the exact class for 98%
//     of series, the literal rule for 90%.
// Tie breakers are sought above the largest measured size (points below it say nothing new about
// growth), on a grid of 8 sizes per octave up to 2^32 times the largest.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "analysis/equation.hpp"

namespace ema::fit {

struct tie_break {
  equation eq;
  std::optional<double> n;  ///< the smallest size above the data where it differs by the threshold
  double cost = 0;          ///< predicted seconds to run a point there (NaN when there is no n)
};

struct equation_groups {
  equation min_error, best;
  std::vector<equation> equivalent;  ///< by increasing error, the minimum-error equation excluded
  std::vector<tie_break> distinguishable, non_distinguishable;
  int candidates = 0;  ///< equations fitted
};

enum class best_rule { parsimony, ema };

struct group_options {
  double threshold = 0.05;
  best_rule rule = best_rule::parsimony;
  /// With best_rule::parsimony, classes are chosen from coarse to fine (issue 29): the best equation
  /// is a coarse class's (coarse()) unless a finer one cuts the mean squared error this many times.
  double fine_gain = 4;
  double budget = 300;  ///< seconds a tie-breaker point may take to be feasible
  /// Predicted seconds to run a point at n; by default the minimum-error equation read as seconds.
  std::function<double(double)> cost;
};

/// Sorts `candidates` into the groups. `sizes` are the measured sizes the equivalence is judged at.
/// Throws std::invalid_argument when there is no candidate.
equation_groups select_groups(std::vector<equation> candidates, const std::vector<double>& sizes, const group_options& options);

/// Whether `e` is of a class a reader names first: 1, log n, √n, n, n log n, n², n² log n, n³, n⁴
/// or bⁿ, with no free exponent.
bool coarse(const equation& e);

/// The smallest size above `largest` (8 per octave, up to 2^32 times it) where `e` differs from
/// `reference` by `threshold` (relative); nullopt when none does.
std::optional<double> find_tie_breaker(const equation& e, const equation& reference, double largest, double threshold);

/// The largest relative difference of `e` from `reference` over `sizes`.
double max_relative_difference(const equation& e, const equation& reference, const std::vector<double>& sizes);

}  // namespace ema::fit
