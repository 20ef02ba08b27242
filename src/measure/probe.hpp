// `ema probe`: the machine's ceilings, against which every table states achieved bandwidth.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace ema {

/// Measures every ceiling this machine has: host read bandwidth and FMA throughput (single and double
/// precision) with all threads and with one; per device read and copy bandwidth, FMA throughput,
/// launch overhead and latency, pinned h2d and d2h bandwidth.
/// Returns {"name": {"value", "unit", "detail"} or {"unavailable": reason}}.
nlohmann::json measure_ceilings(const std::function<void(const std::string&)>& progress);

/// The ceiling name a variant's achieved bandwidth is compared with, by back end.
const char* ceiling_for_backend(const std::string& backend);

/// The ceiling name of a variant's compute roof (floating-point operations per second, FMA
/// pipes), by back end and precision; "" for a user's program.
const char* compute_ceiling_for_backend(const std::string& backend, bool f64);

/// Whether `ceilings` has every ceiling this build measures (a value or why it is unavailable): a
/// probe stored by an older ema lacks the compute roofs and is measured again.
bool ceilings_complete(const nlohmann::json& ceilings);

}  // namespace ema
