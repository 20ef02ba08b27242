// `ema compare A B`: the same points in two experiments (a change to the code, the machine or a
// setting between them), each with the ratio of its medians B / A, a 95% bootstrap interval of that
// ratio over the two points' samples, and a verdict at a threshold: same, faster, slower, or
// ambiguous when the interval straddles the threshold; per variant the geometric mean of the
// ratios; and the points only one experiment has. For a CI that guards performance, as
// benchmark tools' compare modes do (Google Benchmark's compare.py, hyperfine's relative speed).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/grid.hpp"
#include "report/view.hpp"

namespace ema {

struct compared_point {
  std::string problem, params_json, variant;
  std::uint64_t n = 0;
  double a = 0, b = 0;               ///< medians of the metric (instances pooled)
  double ratio = 0, lo = 0, hi = 0;  ///< b / a and its 95% bootstrap interval
  std::string verdict;               ///< same, faster, slower, ambiguous
  /// Why the ratio may not be the code's doing, empty when nothing says so: a side's point ran on
  /// a busy machine, or lies off its neighbours in its own experiment (a disturbance there, not a
  /// change of cost), each named with its side ("B: off its neighbours (+310%)").
  std::string caution;
};

struct compared_variant {
  std::string problem, params_json, variant;
  int points = 0;
  double geomean = 0;  ///< of the ratios
};

/// A variant fitted in both: its best class, verdict and leading exponent in each.
struct compared_fit {
  std::string problem, params_json, variant;
  std::string a_class, b_class, a_verdict, b_verdict;
  std::optional<double> a_exponent, b_exponent;  ///< the exponent of n's estimate, when bootstrapped
  bool class_changed = false;
};

struct comparison {
  std::string metric;
  double threshold = 0.05;
  std::vector<compared_point> points;
  std::vector<compared_variant> variants;
  std::vector<std::string> only_a, only_b;  ///< "problem variant n=… (params)"
  std::vector<compared_fit> fits;           ///< when asked for
};

/// Compares the points of `a` and `b` that ran ok with samples of `metric`, matched by problem,
/// parameters, variant and n. `resamples` bootstrap draws from `seed`.
comparison compare_experiments(const experiment_view& a, const experiment_view& b, const std::string& metric, double threshold, int resamples = 2000,
                               std::uint64_t seed = 1);

/// Fits every variant of both experiments (`ema fit`'s analysis of `metric`) and adds to `c`, for
/// those fitted in both, the class, verdict and exponent in each and whether the class changed.
void compare_fits(comparison& c, const experiment_view& a, const experiment_view& b);

std::string render_comparison(const comparison& c, const std::string& a_name, const std::string& b_name, table_style style);

/// {"schema": "ema.compare/1", "metric", "threshold", "a", "b", "points": [...], "variants": [...],
///  "only_a", "only_b"}
nlohmann::json comparison_json(const comparison& c, const std::string& a_name, const std::string& b_name);

}  // namespace ema
