// rqa on the GPU: what every CUDA variant shares. The series goes to the device in one copy (`h2d`,
// timed with CUDA events like the rest: `kernel`, `d2h`), the plot is the same `plot` as on the
// host over that copy (rqa.hpp: the same arithmetic, so the same cells), and a kernel is
// instantiated per norm. `alloc` and `free` on the host clock.
#pragma once

#include <cuda_runtime.h>
#include <utility>

#include "measure/cuda/check.cuh"
#include "measure/cuda/device_buffer.cuh"
#include "measure/cuda/resources.cuh"
#include "measure/cuda/timeline.cuh"
#include "problems/rqa/rqa.hpp"

namespace ema::rqa {

/// Calls f(std::integral_constant<norm_kind, K>{}) for the plot's norm (a kernel per norm).
template <class F>
decltype(auto) with_norm(norm_kind norm, F&& f) {
  switch (norm) {
    case norm_kind::max: return f(std::integral_constant<norm_kind, norm_kind::max>{});
    case norm_kind::manhattan: return f(std::integral_constant<norm_kind, norm_kind::manhattan>{});
    default: return f(std::integral_constant<norm_kind, norm_kind::euclidean>{});
  }
}

/// The series on device 0 and the stream and timeline the variant works with.
struct device_series {
  cudaStream_t stream = nullptr;
  cuda::device_buffer<double> x;
  plot p;

  device_series(const input& in, run_context& ctx) {
    EMA_CUDA_CHECK(cudaSetDevice(0));
    stream = cuda::stream(0);
    host_phase a(ctx, "alloc");
    x = cuda::device_buffer<double>(in.x.size(), ctx.device_memory());
    p = in.view(x.data());
  }
  /// Copies the series (the `h2d` phase of `tl`).
  void upload(const input& in, cuda::event_timeline& tl) {
    tl.begin("h2d");
    if (!in.x.empty())
      EMA_CUDA_CHECK(cudaMemcpyAsync(x.data(), in.x.data(), x.bytes(), cudaMemcpyHostToDevice, stream));
    tl.end();
  }
};

/// A launch's grid size for `count` items of `block` threads, at least 1.
inline unsigned blocks_for(std::size_t count, unsigned block) {
  return static_cast<unsigned>(count ? (count + block - 1) / block : 1);
}

}  // namespace ema::rqa
