// Host memory facts of this process and this machine, read from /proc.
#pragma once

#include <cstdint>

namespace ema {

/// Physical memory of the machine (MemTotal), in bytes.
std::uint64_t total_memory_bytes();
/// Memory available for new allocations without swapping (MemAvailable), in bytes.
std::uint64_t available_memory_bytes();

}  // namespace ema
