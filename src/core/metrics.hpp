// The catalogue of metrics: every stored sample is a (metric, value) pair, and the catalogue
// gives each metric its unit and meaning, so printers stay generic. A phase a variant reports that
// is not catalogued is a time in seconds.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace ema {

enum class metric_kind { time, bytes, energy };

/// Who records a metric: ema around every run of a point, whatever runs there (its wall and CPU
/// times, its memory, the point's whole wall time: a user's program may not report a phase of
/// these names), the variant as a phase of its run (the kernel, the copies; every metric not
/// catalogued), or a meter beside the runs (energy).
enum class metric_source { run, phase, meter };

struct metric_info {
  const char* name;
  const char* title;  ///< for a chart's title, as a reader says it ("Peak host memory"); empty for a phase not catalogued
  metric_kind kind;
  metric_source source;
  const char* unit;
  const char* description;
  bool charted = true;  ///< drawn in the report (not the point's whole wall time, not energy above idle)
};

/// Every catalogued metric, in report order.
std::span<const metric_info> metric_catalog();

/// The catalogue entry, or a time metric named `name` when it is not catalogued (a phase, charted).
metric_info find_metric(std::string_view name);

/// The names of the metrics ema records around every run (metric_source::run), "a, b or c".
std::string run_metric_names();

}  // namespace ema
