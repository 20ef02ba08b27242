// search / thrust-find — anchor: thrust::find, the library call a user would reach for, on the
// same device array inside the shared device flow. Its temporaries go through an accounting
// allocator that calls cudaMalloc/cudaFree exactly as Thrust's default does.
#include <thrust/execution_policy.h>
#include <thrust/find.h>

#include "core/registry.hpp"
#include "problems/search/device_scan.cuh"

namespace ema::search {
namespace {

output find(const input& in, run_context& ctx) {
  return run_on_device(
      in, ctx, [&](cuda::session& gpu, const std::uint32_t* d, std::uint64_t n, std::uint32_t key, unsigned long long*) -> std::optional<output> {
        auto alloc = gpu.library_allocator();
        auto it = thrust::find(thrust::cuda::par(alloc).on(gpu.stream()), d, d + n, key);
        const auto index = static_cast<output>(it - d);
        return index == static_cast<output>(n) ? -1 : index;
      });
}

}  // namespace
}  // namespace ema::search

EMA_VARIANT(search_thrust_find, ema::search::kit::variant<&ema::search::find>({
                                    .name = "thrust-find",
                                    .backend = ema::backend::cuda,
                                    .role = ema::variant_role::anchor,
                                    .description = "thrust::find on the device array",
                                    .provenance = "thrust::find",
                                }));
