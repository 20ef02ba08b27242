// An experiment as reports see it: each point with every metric summarised (median, min, max,
// ...), its unit, and the reasons for metrics that could not be measured. All printers (terminal
// table, Markdown, CSV, JSON) read this and nothing else.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/registry.hpp"
#include "measure/stats.hpp"
#include "store/database.hpp"

namespace ema {

struct metric_view {
  std::string unit;
  sample_summary stats;
  std::vector<double> values;
};

/// A point's stored parameters with the problem's tuning parameters (param_spec::tuning, the
/// stencil's k) and its overridden launch settings (`launch.omp_threads=4`, written `omp_threads=4`) split
/// off: `rest`, the canonical JSON of the others (a table's group: variants that read k and those
/// that do not share it, so speedups compare them), and `tuning`, "k=v" of the tuning values not at
/// their default (part of a row's label). Without a registered problem,
/// `rest` is the JSON as stored.
struct tuning_split {
  std::string rest, tuning;
};
/// A point's stored parameters as every printer needs them, parsed once (issue 30, item 1): as its
/// problem declares them (nullopt: a problem this build does not register, or parameters it does
/// not take, such as a row changed by hand: the work model's columns stay empty), and split into
/// the table's group and the row's tuning label.
struct params_view {
  std::optional<param_set> declared;
  tuning_split split;
};

struct point_view {
  point_record record;
  nlohmann::json params, result, notes, unavailable;
  std::map<std::string, metric_view> metrics;

  /// The median of a metric, NaN when absent.
  double median(const std::string& metric) const;
  /// Its stored parameters, parsed on first use and kept (record.params_json is not changed after).
  const params_view& parameters() const;

 private:
  mutable std::optional<params_view> parameters_;
};

/// A stored point that tables and fits leave out, with why: measured again (`ema run
/// --rerun-noisy`), or disturbed by a busy machine where a quiet measurement of the same point exists.
struct set_aside_point {
  point_view point;
  std::string why;
};

struct experiment_view {
  experiment_record experiment;
  std::vector<point_view> points;
  std::vector<set_aside_point> set_aside;  ///< kept in the database, left out of `points`
};

/// Whether a point ran while other processes or the hypervisor took the CPUs it needed
/// (measure/host_load.hpp; the note `disturbed`), with the reason.
std::optional<std::string> disturbed(const point_view& p);

/// The experiment's points, each metric summarised. Of the points stored for one (problem, variant,
/// parameters, n, instance) that ran ok, a disturbed one is set aside where one ran quiet, and every
/// one measured before the latest measurement by `--rerun-noisy` is set aside.
experiment_view load_experiment(database& db, std::int64_t id);

/// Each variant of `problem` in the experiment with what a speedup needs: as its points recorded it
/// (the notes `algorithm` and `role`), else, for points stored before ema recorded them, as this
/// build registers it.
std::vector<variant_identity> variant_identities(const experiment_view& v, std::string_view problem);

/// The algorithm of `variant` of `problem` as variant_identities gives it; "" when unknown.
std::string stored_algorithm(const experiment_view& v, std::string_view problem, std::string_view variant);

/// speedup_baseline (core/registry.hpp) among the variants of `ids` that `present` keeps, with the
/// problem's reference algorithm as this build registers it.
std::string speedup_baseline_among(const std::vector<variant_identity>& ids, std::string_view problem, std::string_view variant, backend against,
                                   const std::function<bool(std::string_view)>& present);

/// What a speedup of `variant` against `base` holds besides threads or a GPU, where both are one
/// algorithm that `variant` runs differently (variant_desc::speedup_caveat: "vectorised; seq is
/// scalar"); "" when nothing, or when the two are different algorithms (which the reports say apart).
std::string speedup_caveat(const std::vector<variant_identity>& ids, std::string_view problem, std::string_view variant, std::string_view base);

/// A point's stored parameters (canonical JSON) as "k=v" pairs joined by `separator`; given the
/// problem's name, only those that differ from the problem's defaults (headings: rqa has 16).
std::string params_text(const std::string& params_json, const char* separator = ",", std::string_view problem = {});

tuning_split split_tuning(const std::string& params_json, std::string_view problem);

}  // namespace ema
