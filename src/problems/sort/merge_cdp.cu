// sort / merge-cdp — the recursive mergesort of the study's CUDA-DP environment
// (Nogueira, 004_96c7929830a11cf7.txt: the study compares OpenMP, CUDA and CUDA-DP; the appendix lists only
// the OpenMP recursion, Algorithm 6, and the host-loop CUDA form, Algorithm 5). Designed here after
// Algorithm 6, top-down, under CUDA 12's rules (CDP2, cdp.cuh):
// - a node is a grid of one block on [lo, hi) at depth d. Its thread 0 launches the two halves as
//   fire-and-forget children (Algorithm 6's two `omp task`s) and the merge of the two sorted halves
//   as its tail launch (the `taskwait` then `selection_sort`, read as the merge): the tail grid
//   starts only when both halves, and everything they launched, are done;
// - the merge is a grid of merge_blocks(hi - lo) blocks, each writing 4096 outputs by merge path
//   (tiles.cuh), so the top levels are as parallel as the bottom ones;
// - the cutoff: a node of at most 2^15 keys is a leaf (the launch setting leaf_log2), which one block sorts alone (tiles of 4096 by
//   cub::BlockRadixSort, then merged within the block);
// - the bottom six levels are batched (the launch setting batch_levels): the nodes at depth L - 6 are launched as one grid of a block
//   per leaf below them, and that grid's tail launch is the merge of the deepest level, a single grid
//   over all of the batch's pairs, whose own tail launch merges the next level up, and so on to the
//   batch. Without batching, each leaf and each small merge was a grid of its own, and the GPU keeps
//   at most 128 grids resident at once: the 2^13 single-block leaves at 2^28 ran 128 at a time,
//   about one block a multiprocessor (measured: 95 ms, of which the launches alone, timed by
//   bench/cdp_launch_tree.cu, took 19.6 ms; merge-path sorts 2^28 keys in 17.6 ms).
// The tree is split evenly to one depth L = ceil(log2(n / 2^15)), so every leaf is at depth L and
// the runs ping-pong between the keys and one buffer: a node at depth d leaves its run in the keys
// for even d, in the buffer for odd d, and the root's run ends in the keys.
// Nesting: a node at depth d runs at level d; a batch's merge chain, each grid the tail launch of
// the one before, at most L - 6 levels below it; the deepest grids are at level L (13 at 2^28).
// Device launches (cdp::merge_tree::launches, all counted): 3 per node above the batches, one merge
// grid per level within each batch: 3 (2^B - 1) + 2^B (L - B) for B = max(0, L - 6).
#include <array>

#include "core/registry.hpp"
#include "problems/sort/cdp.cuh"
#include "problems/sort/tiles.cuh"

namespace ema::sort {
namespace {

/// Where a node at depth d leaves its run.
template <class K>
__device__ __forceinline__ K* run_of(K* keys, K* buffer, int depth) {
  return depth % 2 == 0 ? keys : buffer;
}

/// One level inside a batch [lo, hi) at depth `batch`: every node `depth - batch` halvings below it
/// merges its two halves, merge_blocks(its largest node) blocks a node, 4096 outputs a block; then
/// the level above, as this grid's tail launch, until the batch itself is merged. The grid of level
/// d runs at nesting level batch + levels - d.
template <class K>
__global__ void __launch_bounds__(tiles::threads)
    merge_level(K* keys, K* buffer, std::size_t lo, std::size_t hi, int batch, int depth, int levels, cdp::stats* st) {
  __shared__ tiles::merge_storage<K> s;
  const std::size_t per = tiles::merge_blocks(cdp::merge_tree::largest_node(hi - lo, depth - batch));
  std::size_t a = lo, b = hi;
  cdp::merge_tree::node_range(a, b, depth - batch, blockIdx.x / per);
  const std::size_t first = (blockIdx.x % per) * static_cast<std::size_t>(tiles::tile_keys);
  if (first < b - a) {  // a node shorter than the largest leaves its last blocks idle
    const std::size_t mid = a + (b - a) / 2;
    const K* halves = run_of(keys, buffer, depth + 1);
    tiles::merge_tile(halves + a, mid - a, halves + mid, b - mid, run_of(keys, buffer, depth) + a, first, s);
  }
  if (depth > batch && blockIdx.x == 0 && threadIdx.x == 0) {
    merge_level<K><<<cdp::merge_tree::level_blocks(hi - lo, depth - 1 - batch), tiles::threads, 0, cudaStreamTailLaunch>>>(
        keys, buffer, lo, hi, batch, depth - 1, levels, st);
    cdp::launched(st, batch + levels - depth);
  }
}

/// A batch [lo, hi) at depth `batch`: block j sorts leaf j of the batch (a block alone below the
/// cutoff) into its run; the tail launch merges the deepest level.
template <class K>
__global__ void __launch_bounds__(tiles::threads)
    sort_batch(K* keys, K* buffer, std::size_t lo, std::size_t hi, int batch, int levels, cdp::stats* st) {
  __shared__ tiles::block_storage<K> s;
  std::size_t a = lo, b = hi;
  cdp::merge_tree::node_range(a, b, levels - batch, blockIdx.x);
  const std::size_t len = b - a;
  K* const out = run_of(keys, buffer, levels);
  if (len <= static_cast<std::size_t>(tiles::tile_keys))
    tiles::block_sort(keys + a, out + a, static_cast<int>(len), s.sort);
  else
    tiles::block_merge_sort(keys + a, buffer + a, out + a, len, s);
  if (levels > batch && blockIdx.x == 0 && threadIdx.x == 0) {
    merge_level<K><<<cdp::merge_tree::level_blocks(hi - lo, levels - 1 - batch), tiles::threads, 0, cudaStreamTailLaunch>>>(
        keys, buffer, lo, hi, batch, levels - 1, levels, st);
    cdp::launched(st, batch);
  }
}

/// A node above the batches (at depth `batch`), one block: the halves fire-and-forget (nodes, or
/// batches one level down), their merge as the tail launch.
template <class K>
__global__ void node(K* keys, K* buffer, std::size_t lo, std::size_t hi, int depth, int levels, int batch, cdp::stats* st) {
  const std::size_t mid = lo + (hi - lo) / 2;
  if (depth + 1 == batch) {
    const auto leaves = static_cast<unsigned>(std::size_t{1} << (levels - batch));
    sort_batch<K><<<leaves, tiles::threads, 0, cudaStreamFireAndForget>>>(keys, buffer, lo, mid, batch, levels, st);
    cdp::launched(st, depth);
    sort_batch<K><<<leaves, tiles::threads, 0, cudaStreamFireAndForget>>>(keys, buffer, mid, hi, batch, levels, st);
    cdp::launched(st, depth);
  } else {
    node<K><<<1, 1, 0, cudaStreamFireAndForget>>>(keys, buffer, lo, mid, depth + 1, levels, batch, st);
    cdp::launched(st, depth);
    node<K><<<1, 1, 0, cudaStreamFireAndForget>>>(keys, buffer, mid, hi, depth + 1, levels, batch, st);
    cdp::launched(st, depth);
  }
  tiles::merge_runs<K><<<static_cast<unsigned>(tiles::merge_blocks(hi - lo)), tiles::threads, 0, cudaStreamTailLaunch>>>(
      run_of(keys, buffer, depth + 1), run_of(keys, buffer, depth), lo, mid, hi);
  cdp::launched(st, depth);
}

/// The tree's shape (core/launch.hpp): the leaf size, and how many levels a batch's one grid sorts
/// and merges (cdp::merge_tree).
struct tree_launch {
  int leaf_log2 = cdp::merge_tree::default_leaf_log2, batch_levels = cdp::merge_tree::default_batch_levels;
  static constexpr launch_field fields[] = {
      {"leaf_log2", "a node of at most 2^leaf_log2 keys is a leaf, which one block sorts alone (ema: 15)", 12, 24},
      {"batch_levels", "the levels below a batch, whose leaves one grid sorts (a block a leaf) and whose merges chain as tail launches (ema: 6)", 0,
       10}};
  std::array<int*, 2> members() { return {&leaf_log2, &batch_levels}; }
};

template <class K>
struct recursive {
  static output run(const input& in, run_context& ctx) {
    const auto l = ctx.launch(tree_launch{});
    const int levels = cdp::merge_tree::levels(in.n, l.leaf_log2);
    if (levels > cdp::max_nesting) throw usage_error("merge-cdp: n is too large for 24 levels of device launches");
    const std::size_t launches = cdp::merge_tree::launches(levels, l.batch_levels);
    cdp::stats* st = nullptr;
    auto o = run_on_device<K>(
        in, ctx,
        [&](cuda::session& gpu, device_keys<K>& d) {
          K* buffer = gpu.alloc<K>(d.n);
          st = gpu.alloc<cdp::stats>(1);
          cdp::reserve_launches(launches + 64);
          return [&, buffer]() -> const K* {
            gpu.fill_bytes(st, 0, 1);
            if (d.n > 1) {
              const int batch = cdp::merge_tree::batch_depth(levels, l.batch_levels);
              if (batch == 0)
                sort_batch<K><<<1u << levels, tiles::threads, 0, gpu.stream()>>>(d.keys, buffer, 0, d.n, 0, levels, st);
              else
                node<K><<<1, 1, 0, gpu.stream()>>>(d.keys, buffer, 0, d.n, 0, levels, batch, st);
              EMA_CUDA_CHECK_LAUNCH();
            }
            return d.keys;
          };
        },
        [&](cuda::session& gpu) { cdp::record(ctx, gpu.read(st), "merge-cdp"); });
    ctx.note("levels", levels);
    return o;
  }
};

output run(const input& in, run_context& ctx) { return run_typed<recursive>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_merge_cdp, ema::sort::kit::variant<&ema::sort::run>({
                                .name = "merge-cdp",
                                .algorithm = "merge",
                                .backend = ema::backend::cuda,
                                .role = ema::variant_role::source,
                                .description = "recursive mergesort with CUDA dynamic parallelism: halves fire-and-forget, their merge a tail "
                                               "launch, blocks sort 2^15-key leaves, the bottom six levels batched",
                                .provenance = "the study's CUDA-DP form of 004_96c7929830a11cf7.txt (after Algorithm 6; designed per CDP2)",
                                .launch = ema::sort::tree_launch::fields,
                            }));
