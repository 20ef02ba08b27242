// Machine-readable exports of an experiment: JSON (schema "ema.run/1") and CSV (one row per
// point and metric).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/view.hpp"

namespace ema {

/// {"schema": "ema.run/1", "experiment": {...}, "points": [{"problem", "variant", "backend", "n",
/// "params", "seed", "instance", "status", "reason", "verified", "result", "notes", "metrics": {name:
/// {"median", "min", "max", "mean", "stddev", "unit", "samples": [...]}}}]}. A metric that could not
/// be measured has null statistics, no samples and "unavailable": reason.
nlohmann::json to_run_json(const experiment_view& v);

/// experiment,problem,variant,backend,n,params,seed,instance,status,verified,metric,unit,count,median,min,max,mean,stddev,reason
std::string to_csv(const experiment_view& v);

/// Writes `text` to `path`, or to stdout when path is "-". Throws std::runtime_error naming the path.
void write_text(const std::string& path, const std::string& text);

}  // namespace ema
