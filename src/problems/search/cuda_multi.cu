// search / cuda-multi — the multi-GPU split of 001_9fea77a744af8951.txt, section 3.1 and Figure 2:
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
  int device;
  std::uint64_t offset, count;
  scan_config config;
  cuda::device_buffer<std::uint32_t> data;
  cuda::device_buffer<unsigned long long> best;
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
    parts.push_back({d, offset, count, choose_scan_config(gpu::query().devices.at(static_cast<std::size_t>(d)), count),
                     {}, {}, nullptr});
  }
  ctx.note("launch", std::to_string(g) + " device(s), " + std::to_string(share) + " elements each; per device: " + parts[0].config.text());
  {
    host_phase p(ctx, "alloc");
    for (auto& pt : parts) {
      EMA_CUDA_CHECK(cudaSetDevice(pt.device));
      pt.data = cuda::device_buffer<std::uint32_t>(pt.count, ctx.device_memory());
      pt.best = cuda::device_buffer<unsigned long long>(1, ctx.device_memory());
      pt.answer = static_cast<unsigned long long*>(cuda::pinned_scratch(pt.device, sizeof(unsigned long long)));
    }
  }
  std::vector<std::unique_ptr<cuda::event_timeline>> timelines;
  for (auto& pt : parts) {
    EMA_CUDA_CHECK(cudaSetDevice(pt.device));
    cudaStream_t s = cuda::stream(pt.device);
    auto& tl = *timelines.emplace_back(std::make_unique<cuda::event_timeline>(s));
    tl.begin("h2d");
    EMA_CUDA_CHECK(cudaMemcpyAsync(pt.data.data(), in.data.data() + pt.offset, pt.data.bytes(), cudaMemcpyHostToDevice, s));
    EMA_CUDA_CHECK(cudaMemsetAsync(pt.best.data(), 0xff, sizeof(unsigned long long), s));
    tl.end();
    tl.begin("kernel");
    launch_scan(pt.config, pt.data.data(), pt.count, in.key, pt.best.data(), s);
    tl.end();
    tl.begin("d2h");
    EMA_CUDA_CHECK(cudaMemcpyAsync(pt.answer, pt.best.data(), sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    tl.end();
  }
  std::vector<double> longest(3, 0.0);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    EMA_CUDA_CHECK(cudaSetDevice(parts[i].device));
    auto t = timelines[i]->elapsed();
    for (std::size_t k = 0; k < 3; ++k) longest[k] = std::max(longest[k], t[k]);
  }
  ctx.add_phase("h2d", longest[0]);
  ctx.add_phase("kernel", longest[1]);
  ctx.add_phase("d2h", longest[2]);
  {
    host_phase p(ctx, "free");
    for (auto& pt : parts) {
      EMA_CUDA_CHECK(cudaSetDevice(pt.device));
      pt.data.reset();
      pt.best.reset();
    }
  }
  EMA_CUDA_CHECK(cudaSetDevice(0));
  output best = -1;
  for (const auto& pt : parts)
    if (*pt.answer != no_index) {
      const auto found = static_cast<output>(pt.offset + *pt.answer);
      if (best < 0 || found < best) best = found;
    }
  timelines.clear();
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
}));
