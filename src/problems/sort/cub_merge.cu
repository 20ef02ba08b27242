// sort / cub-merge — the library's comparison sort: cub::DeviceMergeSort::SortKeys (block-sorted
// tiles, then merge-path passes) in place on the device keys with operator<. The anchor of the
// issue's GPU mergesort and quicksort targets.
#include <cub/device/device_merge_sort.cuh>

#include "core/registry.hpp"
#include "problems/sort/device.cuh"
#include "problems/sort/tiles.cuh"

namespace ema::sort {
namespace {

template <class K>
struct merge {
  static output run(const input& in, run_context& ctx) {
    return run_on_device<K>(in, ctx, [&](cuda::session& gpu, device_keys<K>& d) {
      const auto n = static_cast<std::int64_t>(d.n);
      std::size_t bytes = 0;
      EMA_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, bytes, d.keys, n, tiles::less_than{}));
      void* temp = gpu.alloc<char>(bytes);
      return [&gpu, &d, n, temp, bytes]() -> const K* {
        std::size_t b = bytes;
        EMA_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(temp, b, d.keys, n, tiles::less_than{}, gpu.stream()));
        return d.keys;
      };
    });
  }
};

output run(const input& in, run_context& ctx) { return run_typed<merge>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_cub_merge, ema::sort::kit::variant<&ema::sort::run>({
                                .name = "cub-merge",
                                .algorithm = "merge",
                                .backend = ema::backend::cuda,
                                .role = ema::variant_role::anchor,
                                .description = "cub::DeviceMergeSort::SortKeys in place on the device keys",
                                .provenance = "cub::DeviceMergeSort",
                            }));
