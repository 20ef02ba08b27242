// stencil / cuda-naive — one launch per time step, a thread per cell, reading step t and writing
// step t + 1 in global memory: what a newcomer writes (002_345fe0ce529d39b6.txt, section II: every
// cell of a step is independent). Neighbours come through the L1 and L2 caches, so each cell update
// costs about one read and one write of device memory: the copy roofline, 2 sizeof(T) bytes per cell.
#include <algorithm>
#include <array>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/stencil/device.cuh"

namespace ema::stencil {
namespace {

struct naive_launch {
  int block_x = 32, block_y = 8;
  static constexpr launch_field fields[] = {
      {"block_x", "threads per block along a row (ema: a warp, so each warp reads whole 128-byte lines)", 1, 1024},
      {"block_y", "threads per block down a column (ema: 8: 256 threads)", 1, 1024},
  };
  std::array<int*, 2> members() { return {&block_x, &block_y}; }
};

template <class T, bool Fixed>
__global__ void step(const T* __restrict__ src, T* __restrict__ dst, int n, std::size_t pitch, coefficients<T> c) {
  const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (j >= n) return;
  for (int i = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); i < n; i += static_cast<int>(gridDim.y * blockDim.y)) {
    const T* row = src + i * pitch;
    T v = row[j];
    if (!Fixed || (i > 0 && j > 0 && i < n - 1 && j < n - 1))
      v = cell_update(c, v, row[prev_of(j, n)], row[next_of(j, n)], src[prev_of(i, n) * pitch + j], src[next_of(i, n) * pitch + j]);
    dst[i * pitch + j] = v;
  }
}

template <class T>
struct one_launch_per_step {
  static output run(const input& in, run_context& ctx) {
    auto l = ctx.launch(naive_launch{});
    if (l.block_x * l.block_y > 1024) throw usage_error("cuda-naive: launch.block_x * launch.block_y must be at most 1024");
    const auto c = in.s.weights<T>();
    const bool fixed = in.s.boundary == boundary_kind::fixed;
    return run_on_device<T>(in, ctx, [&](cuda::session& gpu, device_grids<T>& g) {
      const dim3 block(static_cast<unsigned>(l.block_x), static_cast<unsigned>(l.block_y));
      const dim3 grid(static_cast<unsigned>((g.n + l.block_x - 1) / l.block_x),
                      static_cast<unsigned>(std::min((g.n + l.block_y - 1) / l.block_y, 65535)));
      for (std::uint64_t t = 0; t < in.s.steps; ++t) {
        if (fixed) step<T, true><<<grid, block, 0, gpu.stream()>>>(g.src, g.dst, g.n, g.pitch, c);
        else step<T, false><<<grid, block, 0, gpu.stream()>>>(g.src, g.dst, g.n, g.pitch, c);
        EMA_CUDA_CHECK_LAUNCH();
        g.swap();
      }
    });
  }
};

output run(const input& in, run_context& ctx) { return run_typed<one_launch_per_step>(in, ctx); }

}  // namespace
}  // namespace ema::stencil

EMA_VARIANT(stencil_cuda_naive, ema::stencil::kit::variant<&ema::stencil::run>({
    .name = "cuda-naive",
    .backend = ema::backend::cuda,
    .role = ema::variant_role::ours,
    .description = "one launch per step, a thread per cell, neighbours through the caches",
    .provenance = "ours (the plain CUDA form of section II of 002_345fe0ce529d39b6.txt)",
    .launch = ema::stencil::naive_launch::fields,
}));
