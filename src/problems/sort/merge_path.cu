// sort / merge-path — ours, the fastest GPU mergesort we can build from CUB's block pieces
// (tiles.cuh): one launch sorts every tile of 4096 keys in a block (cub::BlockRadixSort in shared
// memory and registers), then log2(n / 4096) passes each merge pairs of runs: a thread per tile
// boundary finds where the merge crosses it (merge path, cub::MergePath), then every block writes
// 4096 outputs (cub::SerialMerge in shared memory), the runs ping-ponging between the keys and one
// buffer. Each pass reads and writes every key once, so the
// time is about (1 + log2(n / 4096)) · 2 n sizeof(K) / bandwidth.
// Against Algorithm 5 (merge-cuda), the same bottom-up idea with the parallelism kept at every
// width: a merge is split across blocks by its outputs instead of given to one thread.
#include <algorithm>
#include <array>

#include "core/registry.hpp"
#include "problems/sort/tiles.cuh"

namespace ema::sort {
namespace {

struct path_launch {
  int blocks = 0;
  static constexpr launch_field fields[] = {
      {"blocks", "most blocks of a launch, each looping over tiles (ema: 0, a block per tile)", 0, 1 << 30},
  };
  std::array<int*, 1> members() { return {&blocks}; }
};

template <class K>
struct merge_path {
  static output run(const input& in, run_context& ctx) {
    auto l = ctx.launch(path_launch{});
    int passes = 0;
    auto o = run_on_device<K>(in, ctx, [&](cuda::session& gpu, device_keys<K>& d) {
      K* buffer = gpu.alloc<K>(d.n);
      const std::size_t tile_count = tiles::merge_blocks(d.n);
      std::size_t* splits = gpu.alloc<std::size_t>(tile_count + 1);
      return [&, buffer, splits, tile_count]() -> const K* {
        if (d.n == 0) return d.keys;
        std::size_t grid = tiles::merge_blocks(d.n);
        if (l.blocks > 0) grid = std::min<std::size_t>(grid, static_cast<std::size_t>(l.blocks));
        const auto blocks = static_cast<unsigned>(std::min<std::size_t>(grid, 0x7fffffff));
        {
          auto part = gpu.kernel_part("tiles");
          tiles::sort_tiles<K><<<blocks, tiles::threads, 0, gpu.stream()>>>(d.keys, buffer, d.n);
          EMA_CUDA_CHECK_LAUNCH();
        }
        K* from = buffer;
        K* to = d.keys;
        // One part for all the passes: a part per launch put 50-60 µs of event gaps into 1.1 ms at 2^24.
        auto part = gpu.kernel_part("merges");
        for (std::size_t width = tiles::tile_keys; width < d.n; width *= 2) {
          tiles::merge_splits<K><<<static_cast<unsigned>((tile_count + 256) / 256), 256, 0, gpu.stream()>>>(from, d.n, width, splits, tile_count);
          EMA_CUDA_CHECK_LAUNCH();
          tiles::merge_pass<K><<<blocks, tiles::threads, 0, gpu.stream()>>>(from, to, d.n, width, splits);
          EMA_CUDA_CHECK_LAUNCH();
          std::swap(from, to);
          ++passes;
        }
        return from;
      };
    });
    ctx.note("passes", passes);
    return o;
  }
};

output run(const input& in, run_context& ctx) { return run_typed<merge_path>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_merge_path, ema::sort::kit::variant<&ema::sort::run>({
                                 .name = "merge-path",
                                 .algorithm = "merge",
                                 .backend = ema::backend::cuda,
                                 .role = ema::variant_role::ours,
                                 .description = "ours: 4096-key tiles sorted by blocks, then merge passes split across blocks by merge path",
                                 .provenance = "ours (bottom-up like Algorithm 5 of 004_96c7929830a11cf7.txt, parallel at every width)",
                                 .launch = ema::sort::path_launch::fields,
                             }));
