// stencil on the CPU: one Jacobi step of a row segment and of whole grid rows, shared by seq, omp and
// omp-tb (Pires, 002_345fe0ce529d39b6.txt, section I: each cell from its 4-connected neighbours). The row
// kernel is chosen once per process: AVX2 with fused multiply-adds where the CPU has them, else a
// portable loop of fmaf/fma; both round exactly as cell_update does, so the grid is the same.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "problems/stencil/stencil.hpp"

namespace ema::stencil {

/// out[j] = cell_update(mid[j], west mid[j - 1], east mid[j + 1], north up[j], south down[j]) for
/// j in [j0, j1); mid[j0 - 1] and mid[j1] must be readable. `stream`: write `out` with non-temporal
/// stores (a destination not read again soon: saves the read-for-ownership of each line).
void step_row(const coefficients<float>& c, const float* up, const float* mid, const float* down, float* out, std::size_t j0, std::size_t j1,
              bool stream);
void step_row(const coefficients<double>& c, const double* up, const double* mid, const double* down, double* out, std::size_t j0, std::size_t j1,
              bool stream);

/// Makes the non-temporal stores of this thread visible before a barrier.
void stream_fence();

/// The row kernel this CPU runs: "avx2+fma" or "portable".
std::string_view row_kernel_name();

/// The two grids of a parallel run: `a` a copy of the input's grid, `b` zeros, each row first
/// touched (its pages placed) by the thread a schedule(static) loop over the rows gives it.
template <class T>
void first_touch(const T* grid, T* a, T* b, std::size_t n) {
  const auto rows = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    std::copy(grid + i * rows, grid + (i + 1) * rows, a + i * rows);
    std::fill(b + i * rows, b + (i + 1) * rows, T(0));
  }
}

/// One step of rows [r0, r1) of the n x n grid `src` into `dst` (row stride n), with the boundary
/// rule: periodic neighbours wrap; fixed boundary cells are copied.
template <class T>
void step_rows(boundary_kind b, const coefficients<T>& c, const T* src, T* dst, std::size_t n, std::size_t r0, std::size_t r1, bool stream) {
  for (std::size_t i = r0; i < r1; ++i) {
    const T* mid = src + i * n;
    T* out = dst + i * n;
    if (b == boundary_kind::fixed && (i == 0 || i + 1 == n)) {
      for (std::size_t j = 0; j < n; ++j) out[j] = mid[j];
      continue;
    }
    const T* up = src + (b == boundary_kind::fixed ? i - 1 : wrap_prev(i, n)) * n;
    const T* down = src + (b == boundary_kind::fixed ? i + 1 : wrap_next(i, n)) * n;
    if (n >= 3) step_row(c, up, mid, down, out, 1, n - 1, stream);
    // The first and last columns: kept (fixed) or with wrapped neighbours (periodic, every n).
    auto edge = [&](std::size_t j) {
      out[j] = b == boundary_kind::fixed ? mid[j] : cell_update(c, mid[j], mid[wrap_prev(j, n)], mid[wrap_next(j, n)], up[j], down[j]);
    };
    edge(0);
    if (n > 1) edge(n - 1);
  }
}

}  // namespace ema::stencil
