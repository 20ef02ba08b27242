// search / cuda — ours: the bandwidth-bound scan kernel of device_scan.cuh (16-byte coalesced
// loads, eight in flight per thread, balanced contiguous shares per block, an early exit that costs
// one L2 load per warp per 32 KiB, the lowest index by atomicMin) inside the shared device flow.
#include "core/registry.hpp"
#include "problems/search/device_scan.cuh"

namespace ema::search {
namespace {

output scan(const input& in, run_context& ctx) {
  const auto config = ctx.launch(choose_scan_config(gpu::query().devices.at(0), in.data.size()));
  return run_on_device(
      in, ctx,
      [&](cuda::session& gpu, const std::uint32_t* d, std::uint64_t n, std::uint32_t key, unsigned long long* best) -> std::optional<output> {
        launch_scan(config, d, n, key, best, gpu.stream());
        return std::nullopt;
      });
}

}  // namespace
}  // namespace ema::search

EMA_VARIANT(search_cuda, ema::search::kit::variant<&ema::search::scan>({
                             .name = "cuda",
                             .backend = ema::backend::cuda,
                             .role = ema::variant_role::ours,
                             .description = "bandwidth-bound scan: 16-byte loads, 8 in flight per thread, free early exit",
                             .provenance = "ours",
                             .launch = ema::search::scan_config::fields,
                         }));
