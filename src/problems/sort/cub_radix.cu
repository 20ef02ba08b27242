// sort / cub-radix — the anchor a user would reach for first on the GPU: cub::DeviceRadixSort
// (an LSD radix sort, 8 bits a pass for u32, onesweep on recent GPUs) on the device keys, a double
// buffer so no copy back is needed; its temporary storage is allocated with the run's other buffers.
#include <cub/device/device_radix_sort.cuh>

#include "core/registry.hpp"
#include "problems/sort/device.cuh"

namespace ema::sort {
namespace {

template <class K>
struct radix {
  static output run(const input& in, run_context& ctx) {
    return run_on_device<K>(in, ctx, [&](cuda::session& gpu, device_keys<K>& d) {
      K* other = gpu.alloc<K>(d.n);
      std::size_t bytes = 0;
      cub::DoubleBuffer<K> probe(d.keys, other);
      EMA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, probe, d.n));
      void* temp = gpu.alloc<char>(bytes);
      return [&gpu, &d, other, temp, bytes]() -> const K* {
        cub::DoubleBuffer<K> keys(d.keys, other);
        std::size_t b = bytes;
        EMA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, b, keys, d.n, 0, static_cast<int>(sizeof(K) * 8), gpu.stream()));
        return keys.Current();
      };
    });
  }
};

output run(const input& in, run_context& ctx) { return run_typed<radix>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_cub_radix, ema::sort::kit::variant<&ema::sort::run>({
                                .name = "cub-radix",
                                .algorithm = "radix",
                                .backend = ema::backend::cuda,
                                .role = ema::variant_role::anchor,
                                .description = "cub::DeviceRadixSort::SortKeys on the device keys (double buffer)",
                                .provenance = "cub::DeviceRadixSort",
                            }));
