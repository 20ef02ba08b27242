// A description of this machine for the experiment record: host CPU model, cores, caches and
// memory; GPU models, L2 and shared memory, driver and CUDA versions and clocks.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ema {

/// {"host": {...}, "cuda": {...}, "gpus": [...]}; fields that cannot be read are absent or carry a
/// reason ("gpus_unavailable").
nlohmann::json describe_machine();

/// A stable identity of the machine (host name, CPU model, GPU models) under which probes are kept.
std::string machine_key(const nlohmann::json& machine);
/// The machine's kind, its host name left out: "CPU model (N cores, T OpenMP threads), GPU, ..." — the nodes of one
/// kind in a cluster measure alike (ema merge, and fits across shards).
std::string machine_kind(const nlohmann::json& machine);

/// The CPU caches sysfs describes under `dir` (Linux: /sys/devices/system/cpu/cpu0/cache), one
/// entry per level and type: [{"level", "type" (Data, Instruction, Unified), "size_bytes",
/// "shared_cpu_list"}], by level; empty where sysfs has none. With the work model's bytes at each
/// n they say which cache a working set still fits in.
nlohmann::json read_caches(const std::string& dir);

/// Threads an OpenMP variant uses by default (1 without OpenMP).
int openmp_threads();

/// The CPUs this process may run on (its affinity mask as it started: a Slurm allocation, taskset, a
/// container's cpuset), which OpenMP follows; 0 if unknown.
int allowed_cpus();

}  // namespace ema
