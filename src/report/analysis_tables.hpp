// The analysis tables of repeated runs: per problem and parameter set, per size and variant, the
// layout of Table 3 of Zudio et al., 003_7e2665a3d38c50fb.txt (mean, standard deviation, maximum and minimum of
// the total time over every repetition and input instance, and the speedup of the means against
// `seq`), with the measures of Nobre et al., 001_9fea77a744af8951.txt beside it: speedup fs = Ts / Tp against
// `seq` and against `omp`, and, where the variant states its processor count p, efficiency fs / p
// and cost p · Tp. The minimum and maximum are EMA's best and worst case per size, the mean its
// average.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/grid.hpp"
#include "report/view.hpp"

namespace ema {

/// One row: a variant at one size, over all its repetitions and instances.
struct repeated_runs {
  std::string problem, params_json, variant, backend;
  std::uint64_t n = 0;
  int points = 0, runs = 0;  ///< instances that ran ok, and their timed runs
  double median = 0, mean = 0, stddev = 0, max = 0, min = 0;
  /// Of the medians: a mean that one outlier owns (a preempted run) would make the ratio its own.
  std::optional<double> speedup_seq, speedup_omp;
  /// Whether the 95% bootstrap interval of speedup_seq (each side's samples resampled) holds 1:
  /// then the runs show no difference.
  bool speedup_spans_one = false;
  std::optional<double> processors, efficiency, cost;
};

/// Every (problem, parameters, n, variant) with at least one ok point, in table order.
std::vector<repeated_runs> summarize_runs(const experiment_view& v, const std::string& metric = "total");

/// The tables above, one per problem and parameter set.
std::string render_analysis_tables(const experiment_view& v, table_style style);

}  // namespace ema
