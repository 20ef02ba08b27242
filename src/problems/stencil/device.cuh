// stencil on the GPU: the flow every CUDA variant shares, on the GPU session
// (measure/cuda/session.cuh). Two grids on the device, rows padded to a multiple of 32 cells so every
// row starts on a 128-byte line; the initial grid goes in by one 2D copy (`h2d`), the host launches
// the passes (`kernel`: Pires, 002_345fe0ce529d39b6.txt, Code 1's main: "for i < iteracoes, i += n:
// calcula<<<...>>>", the source's synchronisation between calls being the stream's order), and the
// final grid comes back into the session's page-locked results region (`d2h`).
#pragma once

#include <cuda_runtime.h>

#include "measure/cuda/check.cuh"
#include "measure/cuda/session.cuh"
#include "problems/stencil/stencil.hpp"

namespace ema::stencil {

/// The two device grids of a run, `pitch` cells per row.
template <class T>
struct device_grids {
  int n = 0;
  std::size_t pitch = 0;
  T* src = nullptr;  ///< holds the current step
  T* dst = nullptr;  ///< the next step is written here
  void swap() { std::swap(src, dst); }
};

/// The run: allocate, copy in, `passes(gpu, grids)` enqueues every pass on gpu.stream() (swapping
/// the grids after each, so `src` holds the result), copy out, free.
template <class T, class Passes>
output run_on_device(const input& in, run_context& ctx, Passes&& passes) {
  cuda::session gpu(ctx);
  device_grids<T> g;
  g.n = static_cast<int>(in.n);
  g.pitch = (in.n + 31) / 32 * 32;
  g.src = gpu.alloc<T>(g.pitch * in.n);
  g.dst = gpu.alloc<T>(g.pitch * in.n);
  T* result = gpu.results<T>(in.cells());
  const std::size_t row = in.n * sizeof(T), pitch = g.pitch * sizeof(T);
  {
    auto h2d = gpu.phase("h2d");
    EMA_CUDA_CHECK(cudaMemcpy2DAsync(g.src, pitch, in.grid<T>(), row, row, in.n, cudaMemcpyHostToDevice, gpu.stream()));
  }
  {
    auto kernel = gpu.phase("kernel");
    passes(gpu, g);
  }
  {
    auto d2h = gpu.phase("d2h");
    EMA_CUDA_CHECK(cudaMemcpy2DAsync(result, row, g.src, pitch, row, in.n, cudaMemcpyDeviceToHost, gpu.stream()));
  }
  gpu.finish();
  output o;
  o.cells = result;
  return o;
}

/// Index i - 1 and i + 1 along a periodic axis of n cells.
__device__ inline int prev_of(int i, int n) { return i == 0 ? n - 1 : i - 1; }
__device__ inline int next_of(int i, int n) { return i + 1 == n ? 0 : i + 1; }
/// Any integer coordinate wrapped into [0, n) (periodic), or clamped into it (fixed: the cells
/// beyond the edge never reach one inside the grid, so any value serves).
template <bool Fixed>
__device__ inline int into_grid(int i, int n) {
  if (Fixed) return i < 0 ? 0 : i >= n ? n - 1 : i;
  const int r = i % n;
  return r < 0 ? r + n : r;
}

}  // namespace ema::stencil
