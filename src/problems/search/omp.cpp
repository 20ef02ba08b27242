// search / omp — OpenMP scan (ours; the parallel counterpart of Algorithm 1 of
// Nobre et al., 001_9fea77a744af8951.txt). Each thread scans a contiguous share (the same static partition that
// first-touched the input) in blocks; a block is reduced branch-free so the compiler vectorises
// it, and only a block that holds the key is scanned again for the exact index. Early exit across
// threads without giving up the lowest index: a thread stops when the best index found so far lies
// before its next block, since nothing it could still find would be lower.
#include <algorithm>
#include <atomic>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/search/search.hpp"

namespace ema::search {
namespace {

constexpr std::size_t block = 4096;  // 16 KiB: one check of the shared best per block

output scan(const input& in, run_context& ctx) {
  const std::uint32_t* L = in.data.data();
  const std::size_t n = in.data.size();
  const std::uint32_t x = in.key;
  std::atomic<std::int64_t> best{INT64_MAX};
  int threads = 1;
#pragma omp parallel
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto p = static_cast<std::size_t>(omp_get_num_threads());
#pragma omp single nowait
    threads = static_cast<int>(p);
    // The share schedule(static) gives thread t for a loop over n: the pages it first-touched.
    const std::size_t q = n / p, r = n % p;
    const std::size_t begin = t * q + std::min(t, r), end = begin + q + (t < r ? 1 : 0);
    for (std::size_t b = begin; b < end; b += block) {
      if (best.load(std::memory_order_relaxed) < static_cast<std::int64_t>(b)) break;
      const std::size_t e = std::min(end, b + block);
      unsigned hit = 0;
#pragma omp simd reduction(| : hit)
      for (std::size_t i = b; i < e; ++i) hit |= L[i] == x;
      if (!hit) continue;
      std::size_t i = b;
      while (L[i] != x) ++i;
      auto found = static_cast<std::int64_t>(i);
      auto cur = best.load(std::memory_order_relaxed);
      while (found < cur && !best.compare_exchange_weak(cur, found, std::memory_order_relaxed)) {
      }
      break;
    }
  }
  ctx.note("threads", threads);
  ctx.processors(threads);
  const auto b = best.load();
  return b == INT64_MAX ? -1 : b;
}

}  // namespace
}  // namespace ema::search

EMA_VARIANT(search_omp, ema::search::kit::variant<&ema::search::scan>({
                            .name = "omp",
                            .backend = ema::backend::omp,
                            .role = ema::variant_role::ours,
                            .description = "OpenMP scan of contiguous shares, vectorised blocks, early exit keeping the lowest index",
                            .provenance = "ours (parallel form of Algorithm 1 of 001_9fea77a744af8951.txt)",
                            .speedup_caveat = "vectorised; seq is scalar",
                        }));
