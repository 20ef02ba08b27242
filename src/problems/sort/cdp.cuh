// sort with CUDA dynamic parallelism (the study's CUDA-DP, Nogueira, 004_96c7929830a11cf7.txt): what the two
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
#include "core/launch.hpp"
#include "problems/sort/device.cuh"
#include "problems/sort/tiles.cuh"

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
/// grids with no work in them to time the launches alone. The range [lo, hi) is halved (mid =
/// lo + (hi - lo) / 2) down to `levels`, where every leaf holds at most 2^leaf_log2 keys; the nodes
/// at depth batch_depth(levels, batch_levels) are batches: one grid sorts all of a batch's leaves (a
/// block a leaf) and a chain of merge grids, one per level, merges them up to the batch. The two
/// shapes are merge-cdp's launch settings (merge_cdp.cu); the defaults here are ema's.
namespace merge_tree {
constexpr int default_leaf_log2 = 15;    ///< a node of at most 2^15 keys is a leaf
constexpr int default_batch_levels = 6;  ///< a batch holds up to 2^6 leaves
/// Depth of the leaves: the tree is halved until every leaf holds at most 2^leaf_log2 keys.
inline int levels(std::size_t n, int leaf_log2 = default_leaf_log2) {
  const std::size_t leaves = ceil_div(n, std::size_t{1} << leaf_log2);
  return leaves <= 1 ? 0 : static_cast<int>(std::bit_width(leaves - 1));
}
/// Depth of the batches.
__host__ __device__ inline int batch_depth(int levels, int batch_levels = default_batch_levels) {
  return levels > batch_levels ? levels - batch_levels : 0;
}
/// Device launches: two halves and a merge per node above the batches, and one merge grid per
/// level inside each batch.
inline std::size_t launches(int levels, int batch_levels = default_batch_levels) {
  const int b = batch_depth(levels, batch_levels);
  return 3 * ((std::size_t{1} << b) - 1) + (std::size_t{1} << b) * static_cast<std::size_t>(levels - b);
}
/// Node j (0-based, left to right) of those `steps` halvings below [lo, hi): its range.
__host__ __device__ inline void node_range(std::size_t& lo, std::size_t& hi, int steps, std::size_t j) {
  for (int k = steps - 1; k >= 0; --k) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if ((j >> k) & 1)
      lo = mid;
    else
      hi = mid;
  }
}
/// The largest node `steps` halvings below a range of `len` keys.
__host__ __device__ inline std::size_t largest_node(std::size_t len, int steps) {
  for (int k = 0; k < steps; ++k) len -= len / 2;
  return len;
}
/// Blocks of a batch's merge grid for the nodes `steps` halvings below a batch of `len` keys:
/// merge_blocks(the largest node) a node, 4096 outputs a block.
__host__ __device__ inline unsigned level_blocks(std::size_t len, int steps) {
  return static_cast<unsigned>((std::size_t{1} << steps) * tiles::merge_blocks(largest_node(len, steps)));
}
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
