#include "measure/host_probe.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "measure/host_array.hpp"
#include "measure/memory.hpp"
#include "measure/stats.hpp"

namespace ema {

std::size_t host_probe_bytes() {
  const std::size_t want = std::size_t{512} << 20;  // past any last-level cache
  const std::size_t avail = available_memory_bytes();
  return std::max<std::size_t>(std::size_t{64} << 20, std::min(want, avail / 8));
}

double host_read_bandwidth(std::size_t bytes, int threads, int passes) {
  const std::size_t n = bytes / sizeof(std::uint64_t);
  host_array<std::uint64_t> a(n, host_memory_kind::pageable);
  std::uint64_t* p = a.data();
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < count; ++i) p[i] = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull;

  std::vector<double> bw;
  volatile std::uint64_t keep = 0;
  for (int pass = 0; pass < passes + 1; ++pass) {
    auto t0 = std::chrono::steady_clock::now();
    std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum)
    for (std::int64_t i = 0; i < count; ++i) sum += p[i];
    auto dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    keep = keep + sum;
    if (pass > 0) bw.push_back(static_cast<double>(n * sizeof(std::uint64_t)) / dt);  // pass 0 warms up
  }
  return median(bw);
}

}  // namespace ema
