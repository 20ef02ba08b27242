// search / cuda-multi — the multi-GPU split of Nobre et al., 001_9fea77a744af8951.txt, section 3.1 and Figure 2:
// (a) the host divides the array evenly among every visible GPU; (b) the copies to each GPU are
// issued asynchronously, none waiting for another; (c) each GPU searches its part as soon as its
// own copy has arrived, into a result R_g of its own (equations 1 and 2 hold with n/G per GPU; the
// kernel here is our scan of device_scan.cuh); (d) each result comes back asynchronously and the
// host combines them: the lowest offset + index found. Works with one GPU.
// Phase times: each phase is the longest of that phase over the devices (they run concurrently).
#include <algorithm>
#include <vector>

#include "core/registry.hpp"
#include "problems/search/device_scan.cuh"

namespace ema::search {
namespace {

struct part {
  std::uint64_t offset, count;
  scan_config config;
  std::uint32_t* data;
  unsigned long long* best;
  unsigned long long* answer;
};

output split(const input& in, run_context& ctx) {
  const int g = std::max(1, ctx.gpu_count());
  const std::uint64_t n = in.data.size();
  const std::uint64_t share = (n + static_cast<std::uint64_t>(g) - 1) / static_cast<std::uint64_t>(g);
  std::vector<part> parts;
  for (int d = 0; d < g; ++d) {
    const std::uint64_t offset = std::min(n, share * static_cast<std::uint64_t>(d));
    const std::uint64_t count = std::min(share, n - offset);
    parts.push_back(
        {offset, count, ctx.launch(choose_scan_config(gpu::query().devices.at(static_cast<std::size_t>(d)), count)), nullptr, nullptr, nullptr});
  }
  ctx.note("devices", g);
  ctx.note("elements_per_device", static_cast<std::int64_t>(share));
  cuda::multi_session gpus(ctx, g);
  for (std::size_t d = 0; d < parts.size(); ++d) {
    auto& pt = parts[d];
    pt.data = gpus[d].alloc<std::uint32_t>(pt.count);
    pt.best = gpus[d].alloc<unsigned long long>(1);
    pt.answer = gpus[d].results<unsigned long long>(1);
  }
  // (b) and (c): every device's copy, search and answer are enqueued on its own stream at once.
  for (std::size_t d = 0; d < parts.size(); ++d) {
    auto& pt = parts[d];
    auto& gpu = gpus[d];
    EMA_CUDA_CHECK(cudaSetDevice(gpu.device()));
    {
      auto h2d = gpu.phase("h2d");
      gpu.upload(pt.data, in.data.data() + pt.offset, pt.count);
      gpu.fill_bytes(pt.best, 0xff, 1);
    }
    {
      auto kernel = gpu.phase("kernel");
      launch_scan(pt.config, pt.data, pt.count, in.key, pt.best, gpu.stream());
    }
    auto d2h = gpu.phase("d2h");
    gpu.download(pt.answer, pt.best, 1);
  }
  gpus.finish();
  output best = -1;  // (d): the lowest offset + index found
  for (const auto& pt : parts)
    if (*pt.answer != no_index) {
      const auto found = static_cast<output>(pt.offset + *pt.answer);
      if (best < 0 || found < best) best = found;
    }
  return best;
}

}  // namespace
}  // namespace ema::search

EMA_VARIANT(search_cuda_multi, ema::search::kit::variant<&ema::search::split>({
                                   .name = "cuda-multi",
                                   .backend = ema::backend::multi_gpu,
                                   .role = ema::variant_role::source,
                                   .description = "array split evenly over every GPU, asynchronous copies and launches per device",
                                   .provenance = "section 3.1 and Figure 2 of 001_9fea77a744af8951.txt",
                                   .launch = ema::search::scan_config::fields,
                               }));
