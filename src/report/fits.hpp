// The fits of an experiment: one analysis (analysis/analyze.hpp) per problem, parameter set and
// variant, of one metric, as `ema fit` prints them and `ema report` draws them. Each point that
// ran ok gives one value, the median of its samples by default (the mean, best or worst with
// `stat`); points of several input instances at one size are replicates.
#pragma once

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/analyze.hpp"
#include "report/table.hpp"
#include "report/view.hpp"

namespace ema {

enum class point_stat { median, mean, best, worst };

/// "median", "mean", "best" or "worst"; throws usage_error for anything else.
point_stat parse_point_stat(const std::string& s);
const char* to_string(point_stat s);

struct fit_request {
  std::string metric = "total";
  point_stat stat = point_stat::median;
  std::vector<std::string> problems, variants;  ///< empty: all
  /// Seconds a tie breaker may take; default: the experiment's budget, else its per-point timeout.
  std::optional<double> budget;
  fit::analysis_options options;
  /// Fit one curve through points measured on unlike machines (a merge of shards that ran on
  /// different kinds of node): refused by default, each such variant left unfitted with why.
  bool across_machines = false;
  /// The database's path as the user gave it, for the commands a fit prints (`ema fit E --db DB
  /// --settle`); empty: ema's default, left out of them.
  std::string db;
};

/// Where a fit's data came from, so that what would settle it can be said as something to do:
/// an experiment of a database, or another tool's results file.
struct fit_origin {
  std::optional<std::int64_t> experiment;
  std::string db;    ///< as given; empty: the default
  std::string tool;  ///< for a file: gbench, nvbench, hyperfine or csv
  std::string size;  ///< for a tool's file: the argument, axis or parameter that is n
};

struct variant_fit {
  std::string problem, variant, backend, params_json, metric, unit;
  std::optional<fit::analysis> analysis;
  std::string skipped;  ///< why there is no analysis
  std::vector<std::string> notes;
  std::optional<double> resident_threads;  ///< the GPU's capacity, for CUDA variants
  double budget = 0;
  /// The experiment's per-point timeout (seconds): `ema fit --settle` runs no size whose one run
  /// is predicted past min(budget, timeout). Infinite for another tool's results.
  double timeout = INFINITY;
  fit_origin origin;
};

/// The longest one run of the size a verdict names may be predicted to take for `ema fit --settle`
/// to run it: the budget, never past the per-point timeout. Beyond it the run would only meet the
/// timeout; `ema fit --settle` says so and `ema show`'s one command leaves it out.
inline double settle_limit(const variant_fit& f) { return std::min(f.budget, f.timeout); }
inline bool settle_predicted_too_long(const variant_fit& f) {
  const auto& p = f.analysis ? f.analysis->verdict.predicted : std::nullopt;
  return f.unit == "s" && p && std::isfinite(*p) && *p > settle_limit(f);
}

/// What to do to settle a fit whose verdict names a next size: for an experiment the command
/// that measures it and fits again (`ema fit 3 --problem search --variants seq --settle`), for a
/// tool's file what to add to the benchmark; empty when nothing names a size.
std::string settle_text(const variant_fit& f);

/// A line with the one command that measures the next size of every variant of `fits` (one
/// experiment) whose verdict names one, with how many and their predicted time in all; empty
/// when none does.
std::string settle_all_text(const std::vector<variant_fit>& fits, table_style style);

/// A point's value of a metric by `s` (the median of its samples by default).
double point_value(const metric_view& m, point_stat s);

/// Whether --variants names this stored variant, by its name or a former one; everything passes
/// an empty filter.
bool names_variant(const std::vector<std::string>& filter, const std::string& problem, const std::string& variant);

/// Every metric that some point of the experiment has samples of.
std::set<std::string> experiment_metrics(const experiment_view& v);

/// Fits every selected variant. Throws usage_error for a metric that no point has, or a problem
/// or variant filter that matches nothing.
std::vector<variant_fit> fit_experiment(const experiment_view& v, const fit_request& r);

/// For a parameter swept as an axis: per problem, setting of the other parameters and variant, the
/// curve of the best value at each size (the least of the values' medians of `r.metric`), fitted as
/// a variant named "VARIANT (best KEY)", its parameters the others'. Throws usage_error when no
/// problem ran two or more values of `key`.
std::vector<variant_fit> fit_best_curves(const experiment_view& v, const fit_request& r, const std::string& key);

/// The series of one variant's metric as fit_experiment builds it.
fit::series variant_series(const experiment_view& v, const std::string& problem, const std::string& params_json, const std::string& variant,
                           const std::string& metric, point_stat stat, std::vector<std::string>* notes = nullptr);

/// {"schema": "ema.fit/1", "source": ..., "metric", "stat", "fits": [{"problem", "variant", "backend",
/// "params", "metric", "unit", "budget_s", "skipped", "notes", "gpu_resident_threads", ...analysis}]}
nlohmann::json fits_json(const std::vector<variant_fit>& fits, const nlohmann::json& source, const fit_request& r);

/// One line per fit: the best equation's class, its largest error, the verdict (with how many
/// reasons) and what would settle it, as `ema show` and the report's summary print them.
std::string render_fit_summary(const std::vector<variant_fit>& fits, table_style style);

/// The fits as text or Markdown; `all_equations` lists every equivalent equation, not the first 8.
std::string render_fits(const std::vector<variant_fit>& fits, table_style style, bool all_equations = false);

}  // namespace ema
