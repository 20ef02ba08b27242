// stencil / omp-tb — temporal blocking on the CPU with overlapped tiles (ours; the CPU form of the
// source's idea, Pires, 002_345fe0ce529d39b6.txt section III: run k steps on a tile while it sits in fast
// memory, then write it back). Each pass runs k steps: every thread takes tiles of the grid, copies
// a tile and a halo of k cells on each side into a private buffer pair sized for its L2 cache, runs
// the k steps there on a region that shrinks by one cell per step (the halo's cells are computed
// again by the neighbouring tiles: the overlap that makes tiles independent), and writes the tile's
// interior back. Memory traffic falls from 2 sizeof(T) bytes per cell update to about
// (1 + 4k / tile) 2 sizeof(T) / k; the price is the halo's recomputation, about 1 + 2k / tile.
// With fixed boundaries a tile at the grid's edge is clipped there (the edge cells never change).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <omp.h>
#include <unistd.h>

#include "core/registry.hpp"
#include "problems/stencil/host_step.hpp"

namespace ema::stencil {
namespace {

constexpr int default_k = 8;

struct tile_launch {
  int tile_x = 256, tile_y = 256;
  static constexpr launch_field fields[] = {
      {"tile_x",
       "columns of a tile (ema: a square tile whose buffer pair with its halo fills about 60% of the L2, smaller "
       "where the grid would not give every thread a tile)",
       8, 1 << 16},
      {"tile_y", "rows of a tile (ema: as tile_x)", 1, 1 << 16},
  };
  std::array<int*, 2> members() { return {&tile_x, &tile_y}; }
};

/// A square tile whose two buffers, halo of k included, fill about 60% of the L2 (1 MiB assumed
/// when the C library does not say), a multiple of 16 between 32 and 1024; on a grid too small to
/// give every thread a tile of that size, smaller tiles, so that there are at least as many as
/// threads (never under 16: the halo would cost more than the parallelism brings).
tile_launch choose_tiles(std::size_t element, int k, std::int64_t n, int threads) {
  long l2 = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
  l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  const double budget = 0.6 * (l2 > 0 ? static_cast<double>(l2) : double(1 << 20));
  const double side = std::sqrt(budget / (2.0 * static_cast<double>(element))) - 2 * k;
  int tile = std::clamp(static_cast<int>(side) / 16 * 16, 32, 1024);
  const auto per_side = static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(std::max(threads, 1)))));
  const std::int64_t fair = ceil_div(n, per_side);
  if (fair < tile) tile = static_cast<int>(std::max<std::int64_t>(16, (fair + 15) / 16 * 16));
  return {tile, tile};
}

/// Grid coordinate r (possibly outside [0, n)) wrapped into the grid.
std::size_t wrapped(std::int64_t r, std::int64_t n) { return static_cast<std::size_t>(((r % n) + n) % n); }

template <class T>
struct overlapped_tiles {
  struct geometry {
    std::int64_t n, tx, ty;
    bool fixed;
  };

  // One tile, k steps: grid rows [y0, y1) and columns [x0, x1) of `dst` from `src`, through the
  // private buffers `p` and `q`.
  static void tile(const geometry& g, const coefficients<T>& c, const T* src, T* dst, std::int64_t y0, std::int64_t x0, int k, T* p, T* q) {
    const std::int64_t n = g.n, y1 = std::min(n, y0 + g.ty), x1 = std::min(n, x0 + g.tx);
    // The buffer's extent in grid coordinates: the tile and its halo, clipped at a fixed edge.
    const std::int64_t R0 = g.fixed ? std::max<std::int64_t>(0, y0 - k) : y0 - k, R1 = g.fixed ? std::min(n, y1 + k) : y1 + k;
    const std::int64_t C0 = g.fixed ? std::max<std::int64_t>(0, x0 - k) : x0 - k, C1 = g.fixed ? std::min(n, x1 + k) : x1 + k;
    const std::int64_t W = C1 - C0;
    for (std::int64_t r = R0; r < R1; ++r) {
      const T* row = src + wrapped(r, n) * static_cast<std::size_t>(n);
      T* b = p + (r - R0) * W;
      for (std::int64_t col = C0; col < C1;) {  // in runs that do not cross the grid's edge
        const std::int64_t start = static_cast<std::int64_t>(wrapped(col, n)), len = std::min(C1 - col, n - start);
        std::memcpy(b + (col - C0), row + start, static_cast<std::size_t>(len) * sizeof(T));
        col += len;
      }
    }
    for (int s = 1; s <= k; ++s) {
      const std::int64_t rlo = std::max(R0, y0 - k + s), rhi = std::min(R1, y1 + k - s);
      const std::int64_t clo = std::max(C0, x0 - k + s), chi = std::min(C1, x1 + k - s);
      for (std::int64_t r = rlo; r < rhi; ++r) {
        const T* mid = p + (r - R0) * W;
        T* out = q + (r - R0) * W;
        if (g.fixed && (r == 0 || r == n - 1)) {
          std::copy(mid + (clo - C0), mid + (chi - C0), out + (clo - C0));
          continue;
        }
        std::int64_t a = clo, e = chi;
        if (g.fixed && a == 0) out[0 - C0] = mid[0 - C0], a = 1;
        if (g.fixed && e == n) out[n - 1 - C0] = mid[n - 1 - C0], e = n - 1;
        if (a < e) step_row(c, mid - W, mid, mid + W, out, static_cast<std::size_t>(a - C0), static_cast<std::size_t>(e - C0), false);
      }
      std::swap(p, q);
    }
    for (std::int64_t r = y0; r < y1; ++r) std::memcpy(dst + r * n + x0, p + (r - R0) * W + (x0 - C0), static_cast<std::size_t>(x1 - x0) * sizeof(T));
  }

  static output run(const input& in, run_context& ctx) {
    const auto n = static_cast<std::int64_t>(in.n);
    const auto c = in.s.weights<T>();
    const int k = steps_per_load(in.s, default_k);
    const auto l = ctx.launch(choose_tiles(sizeof(T), k, n, omp_get_max_threads()));
    const geometry g{n, l.tile_x, l.tile_y, in.s.boundary == boundary_kind::fixed};
    host_array<T> a(in.cells(), host_memory_kind::pageable), b(in.cells(), host_memory_kind::pageable);
    first_touch(in.grid<T>(), a.data(), b.data(), in.n);
    const std::int64_t tiles_y = ceil_div(n, g.ty), tiles_x = ceil_div(n, g.tx);
    const auto buffer = static_cast<std::size_t>((std::min(g.ty, n) + 2 * k) * (std::min(g.tx, n) + 2 * k));
    int threads = 1;
    std::uint64_t passes = 0;
    {
      host_phase kernel(ctx, "kernel");
#pragma omp parallel
      {
#pragma omp single nowait
        threads = omp_get_num_threads();
        host_array<T> p(buffer, host_memory_kind::pageable), q(buffer, host_memory_kind::pageable);  // uninitialised
        T* src = a.data();
        T* dst = b.data();
        const auto run = for_each_pass(in.s.steps, k, [&](int kk) {
#pragma omp for collapse(2) schedule(static)
          for (std::int64_t ty = 0; ty < tiles_y; ++ty)
            for (std::int64_t tx = 0; tx < tiles_x; ++tx) tile(g, c, src, dst, ty * g.ty, tx * g.tx, kk, p.data(), q.data());
          std::swap(src, dst);
        });
#pragma omp single
        passes = run;
      }
    }
    if (passes % 2) std::swap(a, b);
    ctx.note("k", k);
    ctx.note("threads", threads);
    ctx.processors(threads);
    ctx.note("row_kernel", row_kernel_name());
    return owned(std::move(a));
  }
};

output run(const input& in, run_context& ctx) { return run_typed<overlapped_tiles>(in, ctx); }

}  // namespace
}  // namespace ema::stencil

EMA_VARIANT(stencil_omp_tb, ema::stencil::kit::variant<&ema::stencil::run>({
                                .name = "omp-tb",
                                .backend = ema::backend::omp,
                                .role = ema::variant_role::ours,
                                .description = "temporal blocking: k steps per pass on L2-sized overlapped tiles (halo k), threads take tiles",
                                .provenance = "ours (CPU form of section III of 002_345fe0ce529d39b6.txt)",
                                .launch = ema::stencil::tile_launch::fields,
                                .tuning = ema::stencil::k_tuning,
                            }));
