#pragma once
// Which stored measurements of a point a later or quieter one replaces. One rule for every reader
// of an experiment (`ema fit`, `ema show`, the exports) and for the calibrated sweep's own fits, so
// that the verdict a sweep's story ends on is the one `ema fit` prints after it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/database.hpp"

namespace ema {

/// Why a point ran on a busy machine (its note `disturbed`, measure/host_load.hpp), or nothing.
std::optional<std::string> disturbance_note(const nlohmann::json& notes);

/// For each of `points` (one experiment's, any order), why it is set aside, "" where it is kept. Of
/// the points of one (problem, variant, parameters, n, instance) that ran ok, a disturbed one is set
/// aside where one of them ran quiet, and each one measured before the latest `--rerun-noisy`
/// measurement (the note `rerun`) is set aside. Of the rounds of a point (`ema run --rounds`: the
/// note `round` on all but the first) still kept then, the one whose median total time is least
/// is kept and the others set aside: a slow spell of the machine only adds time, so the quickest
/// round is the least disturbed (the minimum as the robust estimate under noise that only slows,
/// Chen & Revels, "Robust benchmarking in noisy environments", 2016).
std::vector<std::string> set_aside_reasons(const std::vector<const point_record*>& points);

}  // namespace ema
