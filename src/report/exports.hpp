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

/// One row per sample, for a notebook (issue 31, item 6): experiment,problem,variant,backend,n,
/// instance,seed,status,verified,disturbed,left_out, then one column per parameter any point has
/// (its name; `param.NAME` where it would repeat a column above), then metric,unit,sample,value.
/// `sample` counts a point's samples of one metric from 0; a point with no sample (one that
/// failed) has one row with metric and value empty. `left_out` is empty for the points tables and
/// fits use, and why for those they leave out (measured again, or disturbed where a quiet
/// measurement exists; report/view.hpp). `disturbed` is 1 where the machine was busy.
std::string to_samples_csv(const experiment_view& v);

/// Every sample as Extra-P's JSON Lines input (issue 31, item 6; the format its reader
/// extrap/fileio/file_reader/jsonlines_file_reader.py takes), so a user can check ema's fits with
/// Extra-P: a line per sample, {"params": {"n": N}, "callpath": "PROBLEM[ (PARAMS)]->VARIANT",
/// "metric": NAME, "value": X}. The points tables and fits use, those that ran ok; the input
/// instances of one size are repetitions of one coordinate.
std::string to_extrap_jsonl(const experiment_view& v);

/// Writes `text` to `path`, or to stdout when path is "-". Throws std::runtime_error naming the path.
void write_text(const std::string& path, const std::string& text);

}  // namespace ema
