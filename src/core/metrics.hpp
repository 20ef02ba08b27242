// The catalogue of metrics: every stored sample is a (metric, value) pair, and the catalogue
// gives each metric its unit and meaning, so printers stay generic. A phase a variant reports that
// is not catalogued is a time in seconds.
#pragma once

#include <span>
#include <string_view>

namespace ema {

enum class metric_kind { time, bytes, energy };

struct metric_info {
  const char* name;
  metric_kind kind;
  const char* unit;
  const char* description;
};

/// Every catalogued metric, in report order.
std::span<const metric_info> metric_catalog();

/// The catalogue entry, or a time metric named `name` when it is not catalogued.
metric_info find_metric(std::string_view name);

}  // namespace ema
