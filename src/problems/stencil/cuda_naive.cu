// stencil / cuda-naive — one launch per time step, reading step t and writing step t + 1 in global
// memory, neighbours through the L1 and L2 caches: what a newcomer writes
// (Pires, 002_345fe0ce529d39b6.txt, section II: every cell of a step is independent), with one habit of
// bandwidth-bound code, a thread per 16 bytes of a row (4 f32 or 2 f64 cells, one vector load of
// the row and of the rows above and below) in two rows, so enough bytes are in flight to reach the
// copy roofline: each cell update costs about one read and one write of device memory, 2 sizeof(T) bytes.
#include <algorithm>
#include <array>
#include <string>
#include <type_traits>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/stencil/device.cuh"

namespace ema::stencil {
namespace {

struct naive_launch {
  int block_x = 64, block_y = 4;
  static constexpr launch_field fields[] = {
      {"block_x", "threads per block along a row, each on 16 bytes of cells (ema: 64, two lines of 128 bytes per warp)", 1, 1024},
      {"block_y", "threads per block down a column, each on two rows (ema: 4: 256 threads)", 1, 1024},
  };
  std::array<int*, 2> members() { return {&block_x, &block_y}; }
};

template <class T>
using vector16 = std::conditional_t<sizeof(T) == 4, float4, double2>;

/// Cells [j0, j0 + V) of row i, from the rows above and below: vector loads where the cells lie
/// inside the row, else one cell at a time (a row's last, ragged group).
template <class T, bool Fixed>
__device__ __forceinline__ void update(const T* __restrict__ src, T* __restrict__ dst, int n, std::size_t pitch, const coefficients<T>& c, int i,
                                       int j0) {
  constexpr int V = 16 / sizeof(T);
  const T* row = src + i * pitch;
  const T* up = src + prev_of(i, n) * pitch;
  const T* down = src + next_of(i, n) * pitch;
  T* out = dst + i * pitch;
  const bool edge_row = Fixed && (i == 0 || i == n - 1);
  if (j0 + V <= n && !edge_row) {
    union cells {
      vector16<T> v;
      T x[V];
    } m, u, d, o;
    m.v = *reinterpret_cast<const vector16<T>*>(row + j0);
    u.v = *reinterpret_cast<const vector16<T>*>(up + j0);
    d.v = *reinterpret_cast<const vector16<T>*>(down + j0);
    const T west = row[prev_of(j0, n)], east = row[next_of(j0 + V - 1, n)];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int j = j0 + k;
      o.x[k] = cell_update(c, m.x[k], k == 0 ? west : m.x[k - 1], k == V - 1 ? east : m.x[k + 1], u.x[k], d.x[k]);
      if (Fixed && (j == 0 || j == n - 1)) o.x[k] = m.x[k];
    }
    *reinterpret_cast<vector16<T>*>(out + j0) = o.v;
  } else {
    for (int j = j0; j < j0 + V && j < n; ++j)
      out[j] = Fixed && (edge_row || j == 0 || j == n - 1) ? row[j] : cell_update(c, row[j], row[prev_of(j, n)], row[next_of(j, n)], up[j], down[j]);
  }
}

/// Why the settings cannot launch: more threads a block than CUDA allows (variant_desc::launch_refuses).
std::string launch_refuses(const param_set& params, std::uint64_t) {
  const auto l = with_overrides(naive_launch{}, params);
  return l.block_x * l.block_y > 1024 ? "launch.block_x * launch.block_y = " + std::to_string(l.block_x) + " x " + std::to_string(l.block_y) +
                                            " threads a block; CUDA allows at most 1024"
                                      : std::string();
}

/// Rows a thread updates, one after the other in the same column: independent loads in flight.
constexpr int rows_per_thread = 2;

template <class T, bool Fixed>
__global__ void step(const T* __restrict__ src, T* __restrict__ dst, int n, std::size_t pitch, coefficients<T> c) {
  const int j0 = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * (16 / static_cast<int>(sizeof(T)));
  if (j0 >= n) return;
  const int stride = static_cast<int>(gridDim.y * blockDim.y) * rows_per_thread;
  for (int i = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y) * rows_per_thread; i < n; i += stride) {
#pragma unroll
    for (int r = 0; r < rows_per_thread; ++r)
      if (i + r < n) update<T, Fixed>(src, dst, n, pitch, c, i + r, j0);
  }
}

template <class T>
struct one_launch_per_step {
  static output run(const input& in, run_context& ctx) {
    if (const auto why = launch_refuses(ctx.params(), ctx.n()); !why.empty()) throw usage_error("cuda-naive: " + why);
    auto l = ctx.launch(naive_launch{});
    const auto c = in.s.weights<T>();
    const bool fixed = in.s.boundary == boundary_kind::fixed;
    return run_on_device<T>(in, ctx, [&](cuda::session& gpu, device_grids<T>& g) {
      const dim3 block(static_cast<unsigned>(l.block_x), static_cast<unsigned>(l.block_y));
      const int per_row = ceil_div(g.n, 16 / static_cast<int>(sizeof(T)));
      const dim3 grid(grid_for(per_row, l.block_x), grid_for(g.n, l.block_y * rows_per_thread, 65535));
      for (std::uint64_t t = 0; t < in.s.steps; ++t) {
        if (fixed)
          step<T, true><<<grid, block, 0, gpu.stream()>>>(g.src, g.dst, g.n, g.pitch, c);
        else
          step<T, false><<<grid, block, 0, gpu.stream()>>>(g.src, g.dst, g.n, g.pitch, c);
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
                                    .description = "one launch per step, a thread per 16 bytes of cells, neighbours through the caches",
                                    .provenance = "ours (the plain CUDA form of section II of 002_345fe0ce529d39b6.txt)",
                                    .launch = ema::stencil::naive_launch::fields,
                                    .launch_refuses = &ema::stencil::launch_refuses,
                                }));
