// sort with CUDA dynamic parallelism (the study's CUDA-DP, 004_96c7929830a11cf7.txt): what the two
// recursive variants share. CUDA 12+ rules (CDP2): a kernel launches its children into
// cudaStreamFireAndForget and what must follow them into cudaStreamTailLaunch (it starts once the
// launching grid and all the work that grid launched have finished); there is no device-side
// synchronise. Every device launch is counted, with the deepest nesting level and any launch
// that failed (the pending-launch pool full, the nesting limit), and each run records them as the
// notes `device_launches`, `depth` (and `fallbacks` where a variant has them).
#pragma once

#include <bit>
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "problems/sort/device.cuh"

namespace ema::sort::cdp {

/// The hardware's nesting limit is 24 levels of grids below the host's launch.
constexpr int max_nesting = 24;

struct stats {
  unsigned long long launches;  ///< grids launched from the device
  unsigned depth;               ///< deepest nesting level reached (the host's grid is level 0)
  unsigned failures;            ///< device launches that returned an error
  unsigned fallbacks;           ///< segments a variant sorted another way at its depth limit
  unsigned long long nodes;     ///< node records handed out (quick-cdp's partition counters)
  int error;                    ///< the error of a failed launch (the last one seen)
};

/// Counts a device launch made at nesting level `level` (the child runs at level + 1).
__device__ inline void launched(stats* s, int level) {
  atomicAdd(&s->launches, 1ull);
  atomicMax(&s->depth, static_cast<unsigned>(level + 1));
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
    atomicAdd(&s->failures, 1u);
    atomicExch(&s->error, static_cast<int>(e));
  }
}

/// Raises the pending-launch pool so `pending` launches can wait at once (the default is 2048).
inline void reserve_launches(std::size_t pending) {
  std::size_t now = 0;
  EMA_CUDA_CHECK(cudaDeviceGetLimit(&now, cudaLimitDevRuntimePendingLaunchCount));
  if (pending > now) EMA_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, pending));
}

/// merge-cdp's tree (merge_cdp.cu), shared with bench/cdp_launch_tree.cu, which launches the same
/// tree with no work in it to time the launches alone.
namespace merge_tree {
constexpr std::size_t leaf_keys = std::size_t{1} << 15;  ///< a node of at most this many keys is a leaf
/// Depth of the leaves: the tree is split evenly until every leaf holds at most leaf_keys keys.
inline int levels(std::size_t n) {
  const std::size_t leaves = (n + leaf_keys - 1) / leaf_keys;
  return leaves <= 1 ? 0 : static_cast<int>(std::bit_width(leaves - 1));
}
/// Device launches of a tree `levels` deep: two halves and a merge per inner node.
inline std::size_t launches(int levels) { return levels ? 3 * ((std::size_t{1} << levels) - 1) : 0; }
}  // namespace merge_tree

/// After the run (the stream waited for): stores the counts as notes; a failed device launch means
/// keys were left unsorted, so the run fails with the reason.
inline void record(run_context& ctx, const stats& s, const char* variant) {
  ctx.note("device_launches", static_cast<std::int64_t>(s.launches));
  ctx.note("depth", static_cast<std::int64_t>(s.depth));
  ctx.note("fallbacks", static_cast<std::int64_t>(s.fallbacks));
  if (s.failures)
    throw std::runtime_error(std::string(variant) + ": " + std::to_string(s.failures) + " device-side launches failed (" +
                             cudaGetErrorName(static_cast<cudaError_t>(s.error)) + ": " + cudaGetErrorString(static_cast<cudaError_t>(s.error)) +
                             ")");
}

}  // namespace ema::sort::cdp
