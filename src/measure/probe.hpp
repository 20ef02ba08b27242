// `ema probe`: the machine's ceilings, against which every table states achieved bandwidth.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace ema {

/// Measures every ceiling this machine has: host read bandwidth with all threads and with one;
/// per device read and copy bandwidth, launch overhead and latency, pinned h2d and d2h bandwidth.
/// Returns {"name": {"value", "unit", "detail"} or {"unavailable": reason}}.
nlohmann::json measure_ceilings(const std::function<void(const std::string&)>& progress);

/// The ceiling name a variant's achieved bandwidth is compared with, by back end.
const char* ceiling_for_backend(const std::string& backend);

}  // namespace ema
