// gauss on the GPU: what every CUDA variant shares. The augmented matrix goes to the device in one
// copy (the source, section 3.1: "the matrix M is referenced by one pointer ... so the application
// does not run n cudaMemcpy calls"), the phases are timed with CUDA events as the source measured
// them: `h2d` (the matrix, apart), `stage1` (elimination), `stage2` (substitution), `d2h` (the
// solution), and `kernel` = stage1 + stage2; `alloc` and `free` on the host clock.
#pragma once

#include <cuda_runtime.h>
#include <vector>

#include "measure/cuda/check.cuh"
#include "measure/cuda/device_buffer.cuh"
#include "measure/cuda/resources.cuh"
#include "measure/cuda/timeline.cuh"
#include "problems/gauss/gauss.hpp"

namespace ema::gauss {

/// The matrix on the device and the stream the variant works on.
template <class T>
struct device_system {
  std::size_t n = 0, n1 = 0;
  cudaStream_t stream = nullptr;
  cuda::device_buffer<T> m;  ///< [A|b], row-major, n x (n + 1)

  device_system(const input& in, run_context& ctx) : n(in.n), n1(in.n + 1) {
    EMA_CUDA_CHECK(cudaSetDevice(0));
    stream = cuda::stream(0);
    host_phase p(ctx, "alloc");
    m = cuda::device_buffer<T>(n * n1, ctx.device_memory());
  }
  T* data() const { return m.data(); }
  /// Element (i, j) of [A|b] on the device.
  T* at(std::size_t i, std::size_t j) const { return m.data() + i * n1 + j; }
};

/// Publishes the timeline's phases and adds `kernel` = stage1 + stage2 (the device phases).
inline void publish_with_kernel(cuda::event_timeline& tl, run_context& ctx) {
  double before1 = 0, before2 = 0;
  if (auto it = ctx.phases().find("stage1"); it != ctx.phases().end()) before1 = it->second;
  if (auto it = ctx.phases().find("stage2"); it != ctx.phases().end()) before2 = it->second;
  tl.publish(ctx);
  double kernel = 0;
  if (auto it = ctx.phases().find("stage1"); it != ctx.phases().end()) kernel += it->second - before1;
  if (auto it = ctx.phases().find("stage2"); it != ctx.phases().end()) kernel += it->second - before2;
  ctx.add_phase("kernel", kernel);
}

/// The answer of a pivoting solver from LAPACK's info (the 1-based step of the first exactly zero
/// pivot, 0 if none) and the n unknowns that came back.
template <class T>
output from_lu(int info, const T* x, std::size_t n) {
  output out;
  if (info > 0) {
    out.status = output::state::singular;
    out.step = info - 1;
  } else {
    out.x.assign(x, x + n);
  }
  return out;
}

/// A pinned host buffer for the n values that come back.
template <class T>
T* pinned_result(std::size_t n) {
  return static_cast<T*>(cuda::pinned_scratch(0, n * sizeof(T)));
}

}  // namespace ema::gauss
