// gauss / omp — Algorithms 1 and 2 of Zudio et al., 003_7e2665a3d38c50fb.txt with OpenMP: in stage 1 the rows
// below the pivot are updated in parallel at each step k (the loop over i of Algorithm 1 has no
// dependences); in stage 2 each unknown's sum over the known ones is a parallel reduction. No
// pivoting, as the source; a zero pivot stops with "singular".
#include <cstring>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/gauss/gauss.hpp"

namespace ema::gauss {
namespace {

template <class T>
struct algorithms_1_2_omp {
  static output run(const input& in, run_context& ctx) {
    const std::size_t n = in.n, n1 = n + 1;
    host_array<T> copy(n * n1, host_memory_kind::pageable);
    T* M = copy.data();
    const auto rows = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i)  // first touch by the thread that updates the row
      std::memcpy(M + static_cast<std::size_t>(i) * n1, in.augmented<T>() + static_cast<std::size_t>(i) * n1, n1 * sizeof(T));
    ctx.processors(omp_get_max_threads());
    output out;
    std::int64_t zero = -1;
    {
      host_phase p(ctx, "stage1");
#pragma omp parallel
      for (std::size_t k = 0; k + 1 < n; ++k) {
        const T pivo = M[k * n1 + k];
        if (pivo == T(0)) {
#pragma omp single
          zero = static_cast<std::int64_t>(k);
          break;  // every thread sees the same pivot and leaves at the same step
        }
#pragma omp for schedule(static)
        for (std::int64_t ii = static_cast<std::int64_t>(k) + 1; ii < rows; ++ii) {
          const auto i = static_cast<std::size_t>(ii);
          const T coef = M[i * n1 + k] / pivo;
          for (std::size_t j = k; j < n1; ++j) M[i * n1 + j] -= coef * M[k * n1 + j];
        }
      }
    }
    if (zero < 0 && M[(n - 1) * n1 + (n - 1)] == T(0)) zero = static_cast<std::int64_t>(n - 1);
    if (zero >= 0) {
      out.status = output::state::singular;
      out.step = zero;
      return out;
    }
    std::vector<T> x(n);
    {
      host_phase p(ctx, "stage2");
      T sum = 0;
#pragma omp parallel
      for (std::size_t i = n; i-- > 0;) {
#pragma omp single
        sum = 0;
        // Each thread's partial sum, combined by the reduction; the barriers of the worksharing
        // constructs publish x[i] before the next row reads it.
#pragma omp for schedule(static) reduction(+ : sum)
        for (std::int64_t j = static_cast<std::int64_t>(i) + 1; j < rows; ++j)
          sum += M[i * n1 + static_cast<std::size_t>(j)] * x[static_cast<std::size_t>(j)];
#pragma omp single
        x[i] = (M[i * n1 + n] - sum) / M[i * n1 + i];
      }
    }
    out.x.assign(x.begin(), x.end());
    return out;
  }
};

output solve(const input& in, run_context& ctx) { return solve_typed<algorithms_1_2_omp>(in, ctx); }

}  // namespace
}  // namespace ema::gauss

EMA_VARIANT(gauss_omp, ema::gauss::kit::variant<&ema::gauss::solve>({
                           .name = "omp",
                           .algorithm = "elimination",
                           .backend = ema::backend::omp,
                           .role = ema::variant_role::ours,
                           .description = "elimination and back substitution without pivoting, rows in parallel (OpenMP)",
                           .provenance = "Algorithms 1 and 2 of 003_7e2665a3d38c50fb.txt, parallelised with OpenMP",
                           .not_applicable = &ema::gauss::needs_dominance,
                       }));
