// An experiment as reports see it: each point with every metric summarised (median, min, max,
// ...), its unit, and the reasons for metrics that could not be measured. All printers (terminal
// table, Markdown, CSV, JSON) read this and nothing else.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/stats.hpp"
#include "store/database.hpp"

namespace ema {

struct metric_view {
  std::string unit;
  sample_summary stats;
  std::vector<double> values;
};

struct point_view {
  point_record record;
  nlohmann::json params, result, notes, unavailable;
  std::map<std::string, metric_view> metrics;

  /// The median of a metric, NaN when absent.
  double median(const std::string& metric) const;
};

struct experiment_view {
  experiment_record experiment;
  std::vector<point_view> points;
};

experiment_view load_experiment(database& db, std::int64_t id);

/// A point's stored parameters (canonical JSON) as "k=v" pairs joined by `separator`.
std::string params_text(const std::string& params_json, const char* separator = ",");

}  // namespace ema
