// A description of this machine for the experiment record: host CPU model, cores and memory;
// GPU models, driver and CUDA versions and clocks.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ema {

/// {"host": {...}, "cuda": {...}, "gpus": [...]}; fields that cannot be read are absent or carry a
/// reason ("gpus_unavailable").
nlohmann::json describe_machine();

/// A stable identity of the machine (host name, CPU model, GPU models) under which probes are kept.
std::string machine_key(const nlohmann::json& machine);

/// Threads an OpenMP variant uses by default (1 without OpenMP).
int openmp_threads();

}  // namespace ema
