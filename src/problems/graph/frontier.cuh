// Load-balanced expansion of a frontier's edges for the graph problems' GPU variants (bfs cuda,
// sssp cuda): every edge out of the vertices of a queue gets its own thread, whatever the
// vertices' degrees, so a kron graph's hub (a million edges at scale 24) is spread over the whole
// GPU instead of serialising one warp. The scan-based gather of Merrill, Garland and Grimshaw
// ("Scalable GPU graph traversal", PPoPP 2012) in its simplest form, the "load-balancing search"
// of ModernGPU and Gunrock:
// - scan(): the queue's degrees and their exclusive prefix sum (cub::DeviceScan), `starts`, with
//   the total edges in starts[size]; all on the stream, nothing read back;
// - for_each_frontier_edge(): a grid-stride loop over the edge ranks e < starts[size]; each lane
//   finds its vertex by a binary search for the last k with starts[k] <= e (the lanes of a warp
//   search neighbouring ranks, so their loads mostly coincide) and gets the edge's CSR index.
//   The loop's bounds are the same for all lanes of a warp, so the callback may use warp
//   collectives (a ballot to append to a queue); `active` says whether the lane holds an edge.
// expansion_blocks() is the grid to launch it with: enough blocks to fill every multiprocessor.
// device_loop: the cooperative grid on which bfs and sssp run their small levels back to back,
// without the host (the parameter `local_edges`).
#pragma once

#include <array>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <cstdint>

#include "core/launch.hpp"
#include "measure/cuda/check.cuh"
#include "core/run_context.hpp"
#include "measure/cuda/session.cuh"

namespace ema {

/// The launch settings of bfs and sssp `cuda` (core/launch.hpp): threads per block of the level
/// kernels and of the cooperative grid that runs the small levels (a block per multiprocessor),
/// each at most the kernels' launch bounds.
struct level_launch {
  static constexpr int max_threads = 256, max_loop_threads = 512;
  int threads = max_threads, loop_threads = max_loop_threads;
  static constexpr launch_field fields[] = {
      {"threads", "threads per block of the level kernels (ema: 256, their launch bounds)", 32, max_threads, 32},
      {"loop_threads",
       "threads per block of the cooperative grid that runs the small levels, a block per multiprocessor (ema: 512, its launch bounds)", 32,
       max_loop_threads, 32}};
  std::array<int*, 2> members() { return {&threads, &loop_threads}; }
};

namespace frontier_detail {
namespace {  // a copy per translation unit: kernels cannot be inline
__global__ void degrees_of(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ queue, std::uint64_t size,
                           std::uint64_t* degrees) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < size)
    degrees[k] = offsets[queue[k] + 1] - offsets[queue[k]];
  else if (k == size)
    degrees[k] = 0;
}
}  // namespace
}  // namespace frontier_detail

/// Calls visit(active, u, i) for every edge i (a CSR index) out of every vertex u of
/// queue[0, size), one edge per lane; inactive lanes (active false) take part in the warp's turns.
template <class Visit>
__device__ __forceinline__ void for_each_frontier_edge(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ queue,
                                                       std::uint64_t size, const std::uint64_t* __restrict__ starts, Visit&& visit) {
  const std::uint64_t total = starts[size];
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x - lane; base < total; base += stride) {
    const std::uint64_t e = base + lane;
    const bool active = e < total;
    std::uint32_t u = 0;
    std::uint64_t i = 0;
    if (active) {
      std::uint64_t lo = 0, hi = size;  // starts[lo] <= e < starts[hi]
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= e)
          lo = mid;
        else
          hi = mid;
      }
      u = queue[lo];
      i = offsets[u] + (e - starts[lo]);
    }
    visit(active, u, i);
  }
}

/// The buffers of the scan, for queues of up to `capacity` vertices, allocated once per run.
class frontier_expander {
 public:
  frontier_expander(cuda::session& gpu, std::uint64_t capacity) : gpu_(gpu) {
    degrees_ = gpu.alloc<std::uint64_t>(capacity + 1);
    starts_ = gpu.alloc<std::uint64_t>(capacity + 1);
    EMA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes_, degrees_, starts_, capacity + 1));
    temp_ = gpu.alloc<char>(temp_bytes_);
    int sms = 0;
    EMA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu.device()));
    sms_ = static_cast<unsigned>(sms);
  }

  /// starts[k] = the degrees of queue[0, k) summed, for k <= size; on the session's stream.
  const std::uint64_t* scan(const std::uint64_t* offsets, const std::uint32_t* queue, std::uint64_t size) {
    frontier_detail::degrees_of<<<grid_for(size + 1, 256), 256, 0, gpu_.stream()>>>(offsets, queue, size, degrees_);
    EMA_CUDA_CHECK_LAUNCH();
    std::size_t bytes = temp_bytes_;
    EMA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_, bytes, degrees_, starts_, size + 1, gpu_.stream()));
    return starts_;
  }

  /// Blocks of `block` threads for an expansion kernel: a full multiprocessor's worth each
  /// (2048 threads), fewer where `edges` (an upper bound, when the host knows one) needs fewer.
  unsigned expansion_blocks(unsigned block, std::uint64_t edges = ~std::uint64_t{0}) const {
    const std::uint64_t full = std::uint64_t{sms_} * (2048 / block);
    const std::uint64_t needed = edges / block + 1;
    return static_cast<unsigned>(needed < full ? needed : full);
  }

 private:
  cuda::session& gpu_;
  std::uint64_t* degrees_ = nullptr;
  std::uint64_t* starts_ = nullptr;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
  unsigned sms_ = 1;
};

/// A warp's sum and largest of one value a lane, in lane 0 (the callers broadcast what they need).
__device__ __forceinline__ unsigned long long warp_sum(unsigned long long x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(0xffffffffu, x, offset);
  return x;
}
__device__ __forceinline__ unsigned long long warp_max(unsigned long long x) {
  for (int offset = 16; offset > 0; offset /= 2) x = max(x, __shfl_down_sync(0xffffffffu, x, offset));
  return x;
}

/// The widest vertex a level run on the device takes (a thread walks its edges in turn).
constexpr unsigned long long device_max_degree = 64;

/// Whether and how the small levels run on the device (bfs and sssp `cuda`, `local_edges`): a
/// cooperative grid of one `block`-thread block per multiprocessor, if the GPU can launch one with
/// `kernel`; otherwise `local_edges` becomes 0 and the note `device_loop` says why (never silently).
struct device_loop {
  unsigned blocks = 0;
  std::uint64_t local_edges = 0;  ///< 0: every level from the host
  template <class Kernel>
  device_loop(cuda::session& gpu, run_context& ctx, Kernel kernel, unsigned block, std::uint64_t wanted) : local_edges(wanted) {
    int cooperative = 0, sms = 0, per_sm = 0;
    EMA_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, gpu.device()));
    EMA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu.device()));
    EMA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(block), 0));
    blocks = static_cast<unsigned>(sms);
    if (local_edges > 0 && (!cooperative || per_sm < 1)) {
      ctx.note("device_loop", "off: this GPU cannot launch a cooperative grid");
      local_edges = 0;
    }
    ctx.note("local_edges", static_cast<std::int64_t>(local_edges));
  }
  /// Launches `kernel` as a cooperative grid on the session's stream with `args` (pointers to each argument).
  template <class Kernel>
  void launch(cuda::session& gpu, Kernel kernel, unsigned block, void** args) const {
    EMA_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(blocks), dim3(block), args, 0, gpu.stream()));
  }
};

}  // namespace ema
