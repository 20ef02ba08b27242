// sort / merge-cdp — the recursive mergesort of the study's CUDA-DP environment
// (004_96c7929830a11cf7.txt: the study compares OpenMP, CUDA and CUDA-DP; the appendix lists only
// the OpenMP recursion, Algorithm 6, and the host-loop CUDA form, Algorithm 5). Designed here after
// Algorithm 6, top-down, under CUDA 12's rules (CDP2, cdp.cuh):
// - a node is a grid of one block on [lo, hi) at depth d. Above the leaves its thread 0 launches the
//   two halves as fire-and-forget children (Algorithm 6's two `omp task`s) and the merge of the two
//   sorted halves as its tail launch (the `taskwait` then `selection_sort`, read as the merge): the
//   tail grid starts only when both halves, and everything they launched, are done;
// - the merge is a grid of merge_blocks(hi - lo) blocks, each writing 4096 outputs by merge path
//   (tiles.cuh), so the top levels are as parallel as the bottom ones;
// - the cutoff: a node of at most 2^15 keys is a leaf and its block sorts them (tiles of 4096 by
//   cub::BlockRadixSort, then merged within the block), so the tree has 8 times fewer launches than
//   with a leaf per tile (measured: a launch per 4096-key leaf cost ~89% of the time at 2^28).
//   The tree is split evenly to one depth L = ceil(log2(n / 2^15)), so every leaf is at depth L and
//   the runs can ping-pong between the keys and one buffer: a node at depth d leaves its run in
//   the keys for even d, in the buffer for odd d, and the root's run ends in the keys.
// Nesting: a node at depth d runs at level d and its merge one level below, so the deepest grids,
// the leaves and the lowest merges, are at level L (n = 2^28: L = 16); past the hardware's 24
// levels (n > 2^36) the run is refused.
// Device launches: 3 per inner node, 3 (2^L - 1) in all, all counted (cdp.cuh).
#include "core/registry.hpp"
#include "problems/sort/cdp.cuh"
#include "problems/sort/tiles.cuh"

namespace ema::sort {
namespace {

template <class K>
__global__ void __launch_bounds__(tiles::threads) node(K* keys, K* buffer, std::size_t lo, std::size_t hi, int depth, int levels,
                                                       cdp::stats* st) {
  K* const out = depth % 2 == 0 ? keys : buffer;
  if (depth == levels) {
    __shared__ tiles::block_storage<K> s;
    const std::size_t len = hi - lo;
    if (len <= static_cast<std::size_t>(tiles::tile_keys)) tiles::block_sort(keys + lo, out + lo, static_cast<int>(len), s.sort);
    else tiles::block_merge_sort(keys + lo, buffer + lo, out + lo, len, s);
    return;
  }
  if (threadIdx.x != 0) return;
  K* const halves = depth % 2 == 0 ? buffer : keys;  // where the children leave their runs
  const std::size_t mid = lo + (hi - lo) / 2;
  node<K><<<1, tiles::threads, 0, cudaStreamFireAndForget>>>(keys, buffer, lo, mid, depth + 1, levels, st);
  cdp::launched(st, depth);
  node<K><<<1, tiles::threads, 0, cudaStreamFireAndForget>>>(keys, buffer, mid, hi, depth + 1, levels, st);
  cdp::launched(st, depth);
  tiles::merge_runs<K><<<static_cast<unsigned>(tiles::merge_blocks(hi - lo)), tiles::threads, 0, cudaStreamTailLaunch>>>(halves, out, lo, mid, hi);
  cdp::launched(st, depth);
}

template <class K>
struct recursive {
  static output run(const input& in, run_context& ctx) {
    const int levels = cdp::merge_tree::levels(in.n);
    if (levels > cdp::max_nesting) throw usage_error("merge-cdp: n is too large for 24 levels of device launches");
    const std::size_t launches = cdp::merge_tree::launches(levels);
    cdp::stats* st = nullptr;
    auto o = run_on_device<K>(in, ctx, [&](cuda::session& gpu, device_keys<K>& d) {
      K* buffer = gpu.alloc<K>(d.n);
      st = gpu.alloc<cdp::stats>(1);
      cdp::reserve_launches(launches + 64);
      return [&, buffer]() -> const K* {
        gpu.fill_bytes(st, 0, 1);
        if (d.n > 1) {
          node<K><<<1, tiles::threads, 0, gpu.stream()>>>(d.keys, buffer, 0, d.n, 0, levels, st);
          EMA_CUDA_CHECK_LAUNCH();
        }
        return d.keys;
      };
    }, [&](cuda::session&) {
      cdp::stats s{};
      EMA_CUDA_CHECK(cudaMemcpy(&s, st, sizeof s, cudaMemcpyDeviceToHost));
      cdp::record(ctx, s, "merge-cdp");
    });
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
    .description = "recursive mergesort with CUDA dynamic parallelism: halves fire-and-forget, their merge a tail launch, blocks sort 2^15-key leaves",
    .provenance = "the study's CUDA-DP form of 004_96c7929830a11cf7.txt (after Algorithm 6; designed per CDP2)",
}));
