// search on the GPU: our bandwidth-bound scan kernel (used by the `cuda` and `cuda-multi`
// variants) and the host flow every single-device variant shares: allocate, copy the array in,
// search, copy the answer back, free, each phase timed (001_9fea77a744af8951.txt section 3: the
// total time includes allocation, copies and synchronisation; the kernel time is the search alone).
//
// The scan kernel: the array is cut into tiles of `threads * Unroll` 16-byte vectors dealt to the
// blocks round-robin, so the grid sweeps memory as one wavefront; the grid is sized so every block
// gets the same number of tiles to within one. Each thread keeps Unroll independent 16-byte loads
// in flight, coalesced across the warp. While a tile's loads are in flight the thread also reads the
// best index found so far; once that lies before the block's next tile, nothing the block could
// still find is lower, so it stops. With the key absent that check is one L2-resident load per warp
// per tile, overlapped with the data, and the kernel is a pure stream of reads.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>
#include <optional>
#include <string>

#include "core/run_context.hpp"
#include "measure/cuda/check.cuh"
#include "measure/cuda/device_buffer.cuh"
#include "measure/cuda/resources.cuh"
#include "measure/cuda/timeline.cuh"
#include "measure/gpu.hpp"
#include "problems/search/search.hpp"

namespace ema::search {

/// "Not found" in the device-side best index.
constexpr unsigned long long no_index = ~0ull;

/// The launch geometry of the scan kernel, chosen from the device's properties.
struct scan_config {
  int blocks = 1;
  int threads = 256;
  static constexpr int unroll = 8;
  std::string text() const;
};

scan_config choose_scan_config(const gpu::device_info& device, std::uint64_t n);

/// Launches the scan over data[0, n) on `stream`; `best` must hold no_index (or a bound) beforehand.
void launch_scan(const scan_config& c, const std::uint32_t* data, std::uint64_t n, std::uint32_t key,
                 unsigned long long* best, cudaStream_t stream);

/// The shared single-device flow. `search(data, n, key, best, stream)` enqueues the search; it
/// returns the answer itself when it has it on the host already (a library call that synchronises),
/// or nullopt, and the flow then copies `best` back.
template <class Search>
output run_on_device(const input& in, run_context& ctx, Search&& search) {
  const int device = 0;
  EMA_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s = cuda::stream(device);
  const std::uint64_t n = in.data.size();
  cuda::device_buffer<std::uint32_t> data;
  cuda::device_buffer<unsigned long long> best;
  {
    host_phase p(ctx, "alloc");
    data = cuda::device_buffer<std::uint32_t>(n, ctx.device_memory());
    best = cuda::device_buffer<unsigned long long>(1, ctx.device_memory());
  }
  auto* answer = static_cast<unsigned long long*>(cuda::pinned_scratch(device, sizeof(unsigned long long)));
  cuda::event_timeline tl(s);
  tl.begin("h2d");
  EMA_CUDA_CHECK(cudaMemcpyAsync(data.data(), in.data.data(), in.data.bytes(), cudaMemcpyHostToDevice, s));
  EMA_CUDA_CHECK(cudaMemsetAsync(best.data(), 0xff, sizeof(unsigned long long), s));
  tl.end();
  tl.begin("kernel");
  std::optional<output> direct = search(data.data(), n, in.key, best.data(), s);
  tl.end();
  if (!direct) {
    tl.begin("d2h");
    EMA_CUDA_CHECK(cudaMemcpyAsync(answer, best.data(), sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    tl.end();
  }
  tl.publish(ctx);
  {
    host_phase p(ctx, "free");
    data.reset();
    best.reset();
  }
  if (direct) return *direct;
  return *answer == no_index ? -1 : static_cast<output>(*answer);
}

}  // namespace ema::search
