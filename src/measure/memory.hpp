// Host memory facts of this process and this machine, read from /proc.
#pragma once

#include <cstdint>

namespace ema {

/// Physical memory of the machine (MemTotal), in bytes.
std::uint64_t total_memory_bytes();
/// Memory available for new allocations without swapping (MemAvailable), in bytes.
std::uint64_t available_memory_bytes();

/// What this process may still allocate, in bytes: the least of the machine's available memory,
/// what its address-space and data limits leave (ulimit -v, -d) and what its control group's
/// memory.max leaves (a Slurm job's or a container's limit, cgroup v2).
std::uint64_t memory_this_process_may_add();

}  // namespace ema
