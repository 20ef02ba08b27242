// stencil / cuda — ours: temporal blocking with the time steps streamed through registers, the
// approach of the fastest published codes (AN5D, CGO 2020; EBISU, ICS 2023), answering the question
// of Pires, 002_345fe0ce529d39b6.txt (section III: trade computation for memory traffic by running several
// steps per load) without its shared-memory tile.
//
// Each warp owns a strip of 32 V columns (V contiguous cells per thread) and a segment of rows, and
// walks down the segment one row at a time. A pass runs K steps: level 0 is the row just loaded,
// and level l + 1 of row y is computed as soon as level l holds rows y - 1, y and y + 1, so each
// level keeps only its last two rows in registers (2 K V values per thread) and the K steps form a
// pipeline K rows deep. A cell's west and east neighbours are its thread's own registers, except at
// the ends of its V cells, which come from the lanes beside it by one shuffle each way per row and
// level. Nothing is shared between warps: no shared memory, no barrier.
//
// The K-step cone of a cell reaches K cells sideways and K rows up and down, so a strip loads a halo
// of H >= K columns on each side (H rounded up to keep vector loads aligned) and writes its inner
// 32 V - 2 H columns; a segment starts K rows early and runs K rows late. Both are recomputed by
// the neighbouring warps (overlapped tiling). Device memory traffic per cell update falls from
// 2 sizeof(T) bytes to about 2 sizeof(T) / K times the overlap; the price is the recomputation.
//
// K is a template argument (the rows live in registers) from 1 to 16; V shrinks as K grows so that
// 2 K V values fit in the register file. The host launches a pass per K steps and a last pass for
// the remainder.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuda_pipeline.h>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "measure/gpu.hpp"
#include "problems/stencil/device.cuh"

namespace ema::stencil {
namespace {

constexpr unsigned full_mask = 0xffffffffu;
constexpr int warps_per_block = 4;

/// Cells per thread for K steps per pass: 2 K V values of T in registers, about 128 32-bit registers.
template <class T>
__host__ __device__ constexpr int cells_per_thread(int k) {
  if constexpr (sizeof(T) == 4)
    return k <= 8 ? 8 : 4;
  else
    return k <= 4 ? 8 : k <= 8 ? 4 : 2;
}

/// The launch settings: rows per warp segment, chosen from the grid (core/launch.hpp).
struct streamed_launch {
  int rows = 512;
  static constexpr launch_field fields[] = {
      {"rows", "rows of a warp's segment (ema: the grid in one wave of resident warps, at least 4 k rows)", 1, 1 << 20}};
  std::array<int*, 1> members() { return {&rows}; }
};

/// The strip of a pass: its width, halo and the columns it writes.
struct strip_shape {
  int width, halo, inner;
};

template <class T>
strip_shape shape_of(int k) {
  const int v = cells_per_thread<T>(k), align = 16 / static_cast<int>(sizeof(T));
  const int halo = ceil_div(k, align) * align;
  return {32 * v, halo, 32 * v - 2 * halo};
}

template <class T, int V>
struct row_of {
  T v[V];
};

/// Starts copying this thread's V cells of grid row `r` from column `col` (both possibly outside the
/// grid: wrapped, or clamped when Fixed) into its slot of shared memory, asynchronously (the
/// copy engine of cp.async: no register holds the row in flight), 16 bytes at a time where the
/// cells lie inside one row.
template <class T, int V, bool Fixed>
__device__ __forceinline__ void stage_row(T* slot, const T* __restrict__ g, int n, std::size_t pitch, int r, int col) {
  const T* row = g + static_cast<std::size_t>(into_grid<Fixed>(r, n)) * pitch;
  constexpr int per_vector = 16 / sizeof(T);
  if (V % per_vector == 0 && col >= 0 && col + V <= n) {
#pragma unroll
    for (int u = 0; u < V; u += per_vector) __pipeline_memcpy_async(slot + u, row + col + u, 16);
  } else {
#pragma unroll
    for (int u = 0; u < V; ++u) __pipeline_memcpy_async(slot + u, row + into_grid<Fixed>(col + u, n), sizeof(T));
  }
  __pipeline_commit();
}

/// Rows staged per warp: 8 KiB of them, so that with the few warps the register file leaves an SM
/// (8) enough bytes are in flight to cover the latency of device memory (a power of 2, at least 2).
template <class T, int V>
__host__ __device__ constexpr int stages_of() {
  const int s = 8192 / (32 * V * static_cast<int>(sizeof(T)));
  return s < 2 ? 2 : s;
}

/// One level of the pipeline: the next step of the centre row, from north, centre and south.
/// `keep_row`: the row is a fixed boundary; keep[u]: cell u's column is.
template <class T, int V, bool Fixed>
__device__ __forceinline__ void advance(const coefficients<T>& c, const row_of<T, V>& north, const row_of<T, V>& centre, const row_of<T, V>& south,
                                        row_of<T, V>& out, bool keep_row, const bool (&keep)[V]) {
  const T left = __shfl_up_sync(full_mask, centre.v[V - 1], 1);
  const T right = __shfl_down_sync(full_mask, centre.v[0], 1);
#pragma unroll
  for (int u = 0; u < V; ++u) {
    const T w = u == 0 ? left : centre.v[u - 1];
    const T e = u == V - 1 ? right : centre.v[u + 1];
    out.v[u] = cell_update(c, centre.v[u], w, e, north.v[u], south.v[u]);
    if (Fixed && (keep_row || keep[u])) out.v[u] = centre.v[u];
  }
}

template <class T, int K, bool Fixed>
__global__ void __launch_bounds__(32 * warps_per_block)
    streamed(const T* __restrict__ src, T* __restrict__ dst, int n, std::size_t pitch, coefficients<T> c, int strips, int segments, int rows) {
  constexpr int V = cells_per_thread<T>(K);
  constexpr int align = 16 / static_cast<int>(sizeof(T)), H = ceil_div(K, align) * align, inner = 32 * V - 2 * H;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(blockIdx.x) * warps_per_block + static_cast<int>(threadIdx.x) / 32;
  if (warp >= strips * segments) return;  // a whole warp leaves: the shuffles stay full
  const int x0 = (warp % strips) * inner, y0 = (warp / strips) * rows, y1 = min(y0 + rows, n);
  const int col = x0 - H + V * lane;  // this thread's first column
  bool keep[V];
#pragma unroll
  for (int u = 0; u < V; ++u) keep[u] = Fixed && (col + u <= 0 || col + u >= n - 1);

  constexpr int stages = stages_of<T, V>();
  __shared__ __align__(16) T staged[warps_per_block][stages][32 * V];
  T* mine = &staged[threadIdx.x / 32][0][V * lane];
  row_of<T, V> north[K], centre[K];         // level l's rows y - 1 and y, the newest level-l row being y + 1
  const int first = y0 - K, last = y1 + K;  // input rows; level K row r - K is final at step r
#pragma unroll
  for (int d = 0; d < stages - 1; ++d)
    if (first + d < last)
      stage_row<T, V, Fixed>(mine + d * 32 * V, src, n, pitch, first + d, col);
    else
      __pipeline_commit();
  for (int r = first; r < last; ++r) {
    const int ahead = r + stages - 1;
    if (ahead < last)
      stage_row<T, V, Fixed>(mine + ((ahead - first) % stages) * 32 * V, src, n, pitch, ahead, col);
    else
      __pipeline_commit();
    __pipeline_wait_prior(stages - 1);  // row r has landed
    row_of<T, V> south;
    const T* landed = mine + ((r - first) % stages) * 32 * V;
    if constexpr (V * sizeof(T) % 16 == 0) {
      using vec = std::conditional_t<sizeof(T) == 4, float4, double2>;
#pragma unroll
      for (int u = 0; u < V * static_cast<int>(sizeof(T)) / 16; ++u) {
        const vec x = reinterpret_cast<const vec*>(landed)[u];
        if constexpr (sizeof(T) == 4)
          south.v[4 * u] = x.x, south.v[4 * u + 1] = x.y, south.v[4 * u + 2] = x.z, south.v[4 * u + 3] = x.w;
        else
          south.v[2 * u] = x.x, south.v[2 * u + 1] = x.y;
      }
    } else {
#pragma unroll
      for (int u = 0; u < V; ++u) south.v[u] = landed[u];
    }
#pragma unroll
    for (int l = 0; l < K; ++l) {
      // Level l holds rows r - l - 2 (north), r - l - 1 (centre) and r - l (south): level l + 1 of
      // row r - l - 1 is due.
      const int y = r - l - 1;
      row_of<T, V> out;
      advance<T, V, Fixed>(c, north[l], centre[l], south, out, Fixed && (y <= 0 || y >= n - 1), keep);
      north[l] = centre[l];
      centre[l] = south;
      south = out;
    }
    const int y = r - K;
    if (y >= y0 && y < y1) {
      T* row = dst + static_cast<std::size_t>(y) * pitch;
#pragma unroll
      for (int u = 0; u < V; ++u) {
        const int j = col + u;
        if (j >= x0 && j < x0 + inner && j < n) row[j] = south.v[u];
      }
    }
  }
}

template <class T, int K, bool Fixed>
void launch_pass(const device_grids<T>& g, const coefficients<T>& c, int strips, int segments, int rows, cudaStream_t stream) {
  const int warps = strips * segments;
  const unsigned blocks = static_cast<unsigned>(ceil_div(warps, warps_per_block));
  streamed<T, K, Fixed><<<blocks, 32 * warps_per_block, 0, stream>>>(g.src, g.dst, g.n, g.pitch, c, strips, segments, rows);
  EMA_CUDA_CHECK_LAUNCH();
}

/// Warps of the kernel for K that the whole device holds at once.
template <class T, int K, bool Fixed>
int resident_warps(int sms) {
  int blocks = 0;
  EMA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, streamed<T, K, Fixed>, 32 * warps_per_block, 0));
  return std::max(1, blocks) * warps_per_block * sms;
}

/// Calls `f.template operator()<K, Fixed>()` for a K (1 to settings::max_k) and boundary known
/// only at run time.
template <class F, int... Ks>
void with_k(int k, bool fixed, F&& f, std::integer_sequence<int, Ks...>) {
  const bool found = ((k == Ks + 1 ? (fixed ? f.template operator()<Ks + 1, true>() : f.template operator()<Ks + 1, false>(), true) : false) || ...);
  if (!found) throw std::logic_error("cuda: no kernel for k = " + std::to_string(k));
}
template <class F>
void with_k(int k, bool fixed, F&& f) {
  with_k(k, fixed, std::forward<F>(f), std::make_integer_sequence<int, settings::max_k>{});
}

/// k by default (measured on the H100: docs/perf-notes.md).
template <class T>
int default_k() {
  return sizeof(T) == 4 ? 16 : 8;
}

/// Warps one pass launches at size n, k steps a load, rows a segment: strips times segments.
template <class T>
long long warps_of_pass(std::uint64_t n, int k, int rows) {
  const auto inner = static_cast<std::uint64_t>(shape_of<T>(k).inner), r = static_cast<std::uint64_t>(rows);
  return static_cast<long long>(ceil_div(n, inner) * ceil_div(n, r));
}

/// An overridden launch.rows too short for n: more warps than one launch holds
/// (variant_desc::launch_refuses). ema's own rows grow with n and never are.
template <class T>
std::string rows_refuse(const param_set& p, std::uint64_t n) {
  const auto s = settings::of(p);
  const int k = steps_per_load(s, default_k<T>()), rest = static_cast<int>(s.steps % static_cast<std::uint64_t>(k));
  const int rows = with_overrides(streamed_launch{}, p).rows;
  for (const int kk : {k, rest})
    if (kk > 0 && warps_of_pass<T>(n, kk, rows) > (1LL << 31) - 1)
      return "launch.rows = " + std::to_string(rows) + " needs more warps than a launch holds at this size; give a larger launch.rows";
  return {};
}

std::string launch_refuses(const param_set& p, std::uint64_t n) {
  if (!p.values().count("launch.rows")) return {};
  return settings::of(p).f64 ? rows_refuse<double>(p, n) : rows_refuse<float>(p, n);
}

template <class T>
struct register_pipeline {
  static output run(const input& in, run_context& ctx) {
    const int k = steps_per_load(in.s, default_k<T>());
    const auto shape = shape_of<T>(k);
    const int n = static_cast<int>(in.n), strips = ceil_div(n, shape.inner);
    const auto& devices = gpu::query().devices;
    const int sms = devices.empty() ? 1 : devices.front().sm_count;
    const bool fixed = in.s.boundary == boundary_kind::fixed;
    // Segments as long as one wave of resident warps allows (every warp the same rows, no tail
    // wave), never shorter than 4 K rows (the pipeline's fill and drain are 2 K rows).
    int resident = 1;
    with_k(k, fixed, [&]<int K, bool Fixed>() { resident = resident_warps<T, K, Fixed>(sms); });
    const int segments = std::max(1, resident / strips);
    const int chosen = std::max(4 * k, ceil_div(ceil_div(n, segments), 8) * 8);
    const auto l = ctx.launch(streamed_launch{chosen});
    ctx.note("k", k);
    ctx.note("cells_per_thread", cells_per_thread<T>(k));
    ctx.note("halo", shape.halo);
    const auto c = in.s.weights<T>();
    return run_on_device<T>(in, ctx, [&](cuda::session& gpu, device_grids<T>& g) {
      for (std::uint64_t done = 0; done < in.s.steps;) {
        const int kk = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(k), in.s.steps - done));
        if (warps_of_pass<T>(in.n, kk, l.rows) > (1LL << 31) - 1)
          throw usage_error("cuda: n = " + std::to_string(n) + " needs more warps than a launch holds; use a larger launch.rows");
        const int pass_strips = ceil_div(n, shape_of<T>(kk).inner), segments = ceil_div(n, l.rows);
        with_k(kk, fixed, [&]<int K, bool Fixed>() { launch_pass<T, K, Fixed>(g, c, pass_strips, segments, l.rows, gpu.stream()); });
        g.swap();
        done += static_cast<std::uint64_t>(kk);
      }
    });
  }
};

output run(const input& in, run_context& ctx) { return run_typed<register_pipeline>(in, ctx); }

}  // namespace
}  // namespace ema::stencil

EMA_VARIANT(stencil_cuda,
            ema::stencil::kit::variant<&ema::stencil::run>({
                .name = "cuda",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::ours,
                .description = "temporal blocking: k steps per pass streamed through registers, a warp per strip, shuffles between lanes",
                .provenance = "ours (after AN5D and EBISU; section III of 002_345fe0ce529d39b6.txt)",
                .launch = ema::stencil::streamed_launch::fields,
                .launch_refuses = &ema::stencil::launch_refuses,
                .tuning = ema::stencil::k_tuning,
            }));
