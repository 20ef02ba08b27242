// stencil / cuda-listing — Code 1 of Pires, 002_345fe0ce529d39b6.txt ("calcula"), section III: every call
// copies a tile of the grid from global to shared memory, a thread per element; each thread applies
// the stencil n times on the shared tile (the source's n: steps per load, our k); the tile goes back
// to global memory; the host calls again every k steps, the calls ordered on one stream (the
// source's synchronisation between calls). Interpretations, since the listing leaves them open:
//   - Jacobi, not in place: the listing writes `shared[ID_Elemento] = soma` into the tile it reads,
//     a race between a thread's write and its neighbours' reads of the same step. The tile is held
//     twice (step t and step t + 1), with a barrier between steps.
//   - The listing's `soma += shared[ID_Elemento]` (centre weight 1) and kernel[k0..k3] are the
//     problem's five weights c0, cw, ce, cn, cs.
//   - A tile's edge: the source does not say how an element on the edge of a tile gets its
//     neighbours' values after the first step. Tiles overlap: each block loads its tile of
//     `tile` x `tile` elements with a halo of k cells on every side and writes back only the inner
//     (tile - 2k)^2 cells, whose k-step cone stays inside the tile; the halo's cells are computed
//     again by the neighbouring blocks. So k < tile / 2.
#include <array>
#include <string>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/stencil/device.cuh"

namespace ema::stencil {
namespace {

constexpr int default_k = 4;

struct listing_launch {
  int tile = 32;
  static constexpr launch_field fields[] = {
      {"tile", "side of a block's tile, a thread per element (ema: 32, 1024 threads, the most a block holds)", 3, 32}};
  std::array<int*, 1> members() { return {&tile}; }
};

template <class T, bool Fixed>
__global__ void calcula(const T* __restrict__ src, T* __restrict__ dst, int n, std::size_t pitch, coefficients<T> c, int k, int tiles) {
  extern __shared__ unsigned char shared_bytes[];
  const int tile = static_cast<int>(blockDim.x), inner = tile - 2 * k;
  T* now = reinterpret_cast<T*>(shared_bytes);
  T* next = now + tile * tile;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y), at = ty * tile + tx;
  for (int by = static_cast<int>(blockIdx.y); by < tiles; by += static_cast<int>(gridDim.y)) {
    const int i = by * inner - k + ty, j = static_cast<int>(blockIdx.x) * inner - k + tx;  // this thread's cell
    // cudaMemSharedCopy(global, shared, GlobalToShared)
    now[at] = src[into_grid<Fixed>(i, n) * pitch + into_grid<Fixed>(j, n)];
    const bool edge = tx == 0 || ty == 0 || tx == tile - 1 || ty == tile - 1;
    const bool kept = Fixed && (i <= 0 || j <= 0 || i >= n - 1 || j >= n - 1);
    __syncthreads();
    for (int s = 0; s < k; ++s) {  // while (n > 0)
      T v = now[at];
      if (!edge && !kept) v = cell_update(c, v, now[at - 1], now[at + 1], now[at - tile], now[at + tile]);
      next[at] = v;
      __syncthreads();
      T* t = now;
      now = next;
      next = t;
    }
    // cudaMemSharedCopy(global, shared, SharedToGlobal), the inner cells only
    if (tx >= k && ty >= k && tx < k + inner && ty < k + inner && i < n && j < n) dst[i * pitch + j] = now[at];
    __syncthreads();
  }
}

/// The steps a load runs (k, clamped to the steps as the run clamps it) and the tile, as a point
/// with these parameters would run them.
int k_of(const param_set& p) { return steps_per_load(settings::of(p), default_k); }
int tile_of(const param_set& p) { return with_overrides(listing_launch{}, p).tile; }

/// Why k does not fit the tile, or nullptr.
const char* k_too_large(const param_set& p, std::uint64_t) {
  return 2 * k_of(p) >= tile_of(p) ? "not applicable: k steps per load leave no inner cells in the tile (overlapped tiles need k < tile / 2)"
                                   : nullptr;
}

/// An overridden tile that leaves no inner cells for k: the command's error, since it is the user's
/// setting (variant_desc::launch_refuses); with ema's tile the point is skipped (k_too_large).
std::string launch_refuses(const param_set& p, std::uint64_t n) {
  if (!p.values().count("launch.tile") || !k_too_large(p, n)) return {};
  return "launch.tile = " + std::to_string(tile_of(p)) + " leaves no inner cells for k = " + std::to_string(k_of(p)) +
         " steps a load (overlapped tiles need k < tile / 2)";
}

template <class T>
struct code_1 {
  static output run(const input& in, run_context& ctx) {
    const auto l = ctx.launch(listing_launch{});
    const int k = steps_per_load(in.s, default_k);
    ctx.note("k", k);
    if (2 * k >= l.tile)
      throw usage_error("cuda-listing: k = " + std::to_string(k) + " leaves no inner cells in a tile of " + std::to_string(l.tile) +
                        " (k < tile / 2)");
    const auto c = in.s.weights<T>();
    const bool fixed = in.s.boundary == boundary_kind::fixed;
    const std::size_t shared = 2 * static_cast<std::size_t>(l.tile * l.tile) * sizeof(T);
    return run_on_device<T>(in, ctx, [&](cuda::session& gpu, device_grids<T>& g) {
      for (std::uint64_t done = 0; done < in.s.steps;) {
        const int kk = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(k), in.s.steps - done));
        const int inner = l.tile - 2 * kk, tiles = ceil_div(g.n, inner);
        const dim3 block(static_cast<unsigned>(l.tile), static_cast<unsigned>(l.tile));
        const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(std::min(tiles, 65535)));
        if (fixed)
          calcula<T, true><<<grid, block, shared, gpu.stream()>>>(g.src, g.dst, g.n, g.pitch, c, kk, tiles);
        else
          calcula<T, false><<<grid, block, shared, gpu.stream()>>>(g.src, g.dst, g.n, g.pitch, c, kk, tiles);
        EMA_CUDA_CHECK_LAUNCH();
        g.swap();
        done += static_cast<std::uint64_t>(kk);
      }
    });
  }
};

output run(const input& in, run_context& ctx) { return run_typed<code_1>(in, ctx); }

}  // namespace
}  // namespace ema::stencil

EMA_VARIANT(stencil_cuda_listing,
            ema::stencil::kit::variant<&ema::stencil::run>({
                .name = "cuda-listing",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::source,
                .description = "Code 1: a tile per block in shared memory, k steps there, a launch every k steps (overlapped tiles)",
                .provenance = "Code 1 of 002_345fe0ce529d39b6.txt",
                .launch = ema::stencil::listing_launch::fields,
                .launch_refuses = &ema::stencil::launch_refuses,
                .tuning = ema::stencil::k_tuning,
                .not_applicable = &ema::stencil::k_too_large,
            }));
