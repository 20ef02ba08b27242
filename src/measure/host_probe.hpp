// Host memory read bandwidth: the ceiling an OpenMP or sequential scan is compared with.
#pragma once

#include <cstddef>

namespace ema {

/// Median bandwidth (bytes/s) of `passes` reads of a `bytes` buffer by `threads` threads, each
/// reading a static contiguous share that it also first-touched.
double host_read_bandwidth(std::size_t bytes, int threads, int passes = 5);

/// A buffer size well past the last-level cache that this machine's free memory allows.
std::size_t host_probe_bytes();

}  // namespace ema
