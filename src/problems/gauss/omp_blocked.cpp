// gauss / omp-blocked — ours on the CPU: blocked right-looking LU with partial pivoting on the
// augmented matrix [A|b] (so b is transformed with the rows and only the back substitution is
// left), OpenMP across the cores. Same arithmetic as Algorithm 1 of Zudio et al., 003_7e2665a3d38c50fb.txt
// reorganised for the caches (Golub and van Loan, section 3.4 "Block LU"):
//   for each panel of nb columns:
//     1. factor the panel (rows k..n, nb columns) column by column with partial pivoting: the
//        pivot search and the row scaling/updates split over threads by rows, whole rows swapped;
//     2. U12 = L11^-1 A12 (a unit lower triangular solve with nb rows), split by column tiles;
//     3. A22 -= L21 U12: the Θ(n^3) part, a matrix product per tile of rows and columns, the tiles
//        dealt to the threads; each product is Eigen's cache-blocked, vectorised GEMM.
// Back substitution (Algorithm 2) on U and the transformed b ends it.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/gauss/gauss.hpp"

namespace ema::gauss {
namespace {

template <class T>
struct blocked_lu {
  using matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using view = Eigen::Map<matrix, Eigen::Unaligned, Eigen::OuterStride<>>;

  static constexpr std::size_t tile = 256;  // rows and columns of one trailing-update tile

  static output run(const input& in, run_context& ctx) {
    const std::size_t n = in.n, n1 = n + 1;
    const std::size_t nb = n >= 2048 ? 128 : n >= 256 ? 64 : 16;
    host_array<T> copy(n * n1, host_memory_kind::pageable);
    T* M = copy.data();
    const auto rows = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i)
      std::memcpy(M + static_cast<std::size_t>(i) * n1, in.augmented<T>() + static_cast<std::size_t>(i) * n1, n1 * sizeof(T));
    ctx.processors(omp_get_max_threads());
    ctx.note("block", static_cast<std::int64_t>(nb));
    auto block = [&](std::size_t r, std::size_t c, std::size_t h, std::size_t w) {
      return view(M + r * n1 + c, static_cast<Eigen::Index>(h), static_cast<Eigen::Index>(w), Eigen::OuterStride<>(static_cast<Eigen::Index>(n1)));
    };

    output out;
    {
      host_phase p(ctx, "stage1");
      for (std::size_t k0 = 0; k0 < n; k0 += nb) {
        const std::size_t kb = std::min(nb, n - k0), k1 = k0 + kb;
        if (auto zero = factor_panel(M, n, k0, kb); zero >= 0) {
          out.status = output::state::singular;
          out.step = zero;
          return out;
        }
        if (k1 >= n1) break;
        const std::size_t right = n1 - k1;  // columns right of the panel, b included
        const auto col_tiles = static_cast<std::int64_t>(ceil_div(right, tile));
        const auto L11 = block(k0, k0, kb, kb);
#pragma omp parallel for schedule(dynamic, 1)
        for (std::int64_t t = 0; t < col_tiles; ++t) {
          const std::size_t c = k1 + static_cast<std::size_t>(t) * tile, w = std::min(tile, n1 - c);
          auto U12 = block(k0, c, kb, w);
          L11.template triangularView<Eigen::UnitLower>().solveInPlace(U12);
        }
        if (k1 >= n) continue;
        const std::size_t below = n - k1;
        const auto row_tiles = static_cast<std::int64_t>(ceil_div(below, tile));
#pragma omp parallel for collapse(2) schedule(dynamic, 1)
        for (std::int64_t rt = 0; rt < row_tiles; ++rt)
          for (std::int64_t ct = 0; ct < col_tiles; ++ct) {
            const std::size_t r = k1 + static_cast<std::size_t>(rt) * tile, h = std::min(tile, n - r);
            const std::size_t c = k1 + static_cast<std::size_t>(ct) * tile, w = std::min(tile, n1 - c);
            auto A22 = block(r, c, h, w);
            A22.noalias() -= block(r, k0, h, kb) * block(k0, c, kb, w);
          }
      }
    }
    out.x = back_substitution(M, n, ctx);
    return out;
  }

  /// Factors columns k0..k0+kb of rows k0..n in place (L below the diagonal, U on and above),
  /// swapping whole rows of M for the pivots. Returns the step of an exactly zero pivot, or -1.
  static std::int64_t factor_panel(T* M, std::size_t n, std::size_t k0, std::size_t kb) {
    const std::size_t n1 = n + 1;
    std::int64_t zero = -1;
    std::size_t pivot_row = 0;
    T best = 0;
#pragma omp parallel
    for (std::size_t j = k0; j < k0 + kb; ++j) {
      // The pivot: the largest magnitude in column j, the lowest row among equals.
#pragma omp single
      {
        pivot_row = j;
        best = std::abs(M[j * n1 + j]);
      }
      std::size_t my_row = j;
      T my_best = -1;
#pragma omp for schedule(static) nowait
      for (std::int64_t ii = static_cast<std::int64_t>(j); ii < static_cast<std::int64_t>(n); ++ii) {
        const T v = std::abs(M[static_cast<std::size_t>(ii) * n1 + j]);
        if (v > my_best) my_best = v, my_row = static_cast<std::size_t>(ii);
      }
#pragma omp critical
      if (my_best > best || (my_best == best && my_row < pivot_row)) best = my_best, pivot_row = my_row;
#pragma omp barrier
      if (best == T(0)) {
#pragma omp single
        zero = static_cast<std::int64_t>(j);
        break;  // all threads see the same best
      }
#pragma omp single
      if (pivot_row != j) std::swap_ranges(M + j * n1, M + j * n1 + n1, M + pivot_row * n1);
      const T pivot = M[j * n1 + j];
      const std::size_t end = k0 + kb;
#pragma omp for schedule(static)
      for (std::int64_t ii = static_cast<std::int64_t>(j) + 1; ii < static_cast<std::int64_t>(n); ++ii) {
        T* row = M + static_cast<std::size_t>(ii) * n1;
        const T l = row[j] / pivot;
        row[j] = l;
        for (std::size_t c = j + 1; c < end; ++c) row[c] -= l * M[j * n1 + c];
      }
    }
    return zero;
  }
};

output solve(const input& in, run_context& ctx) { return solve_typed<blocked_lu>(in, ctx); }

}  // namespace
}  // namespace ema::gauss

EMA_VARIANT(gauss_omp_blocked, ema::gauss::kit::variant<&ema::gauss::solve>({
                                   .name = "omp-blocked",
                                   .algorithm = "lu",
                                   .backend = ema::backend::omp,
                                   .role = ema::variant_role::ours,
                                   .description = "blocked right-looking LU with partial pivoting, Eigen GEMM tiles (OpenMP)",
                                   .provenance = "ours",
                               }));
