// sort / thrust-sort — the one-line call a user writes: thrust::sort on the device keys (Thrust
// picks a radix sort for arithmetic keys with the default order), its temporaries through the
// session's accounting allocator.
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "core/registry.hpp"
#include "problems/sort/device.cuh"

namespace ema::sort {
namespace {

template <class K>
struct library {
  static output run(const input& in, run_context& ctx) {
    return run_on_device<K>(in, ctx, [&](cuda::session& gpu, device_keys<K>& d) {
      return [&gpu, &d]() -> const K* {
        auto alloc = gpu.library_allocator();
        thrust::sort(thrust::cuda::par(alloc).on(gpu.stream()), d.keys, d.keys + d.n);
        return d.keys;
      };
    });
  }
};

output run(const input& in, run_context& ctx) { return run_typed<library>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_thrust_sort, ema::sort::kit::variant<&ema::sort::run>({
                                  .name = "thrust-sort",
                                  .algorithm = "thrust",
                                  .backend = ema::backend::cuda,
                                  .role = ema::variant_role::anchor,
                                  .description = "thrust::sort on the device keys (a radix sort for these key types)",
                                  .provenance = "thrust::sort",
                              }));
