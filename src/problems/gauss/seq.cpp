// gauss / seq — Algorithms 1 (ESCALONA: elimination) and 2 (SUBSTITUIÇÃO: back substitution) of
// Zudio et al., 003_7e2665a3d38c50fb.txt, section 3, as written, on a copy of the augmented matrix M = [A|b]:
// no pivoting, pivots on the main diagonal, the inner loop over j from k to n + 1 (1-based) so b is
// eliminated with the rows. Θ(n^3) + Θ(n^2).
//
// Beyond the listing: a zero pivot stops with "singular" instead of dividing by it.
#include <cstring>

#include "core/registry.hpp"
#include "problems/gauss/gauss.hpp"

namespace ema::gauss {
namespace {

template <class T>
struct algorithms_1_2 {
  static output run(const input& in, run_context& ctx) {
    const std::size_t n = in.n, n1 = n + 1;
    host_array<T> copy(n * n1, host_memory_kind::pageable);
    std::memcpy(copy.data(), in.augmented<T>(), copy.bytes());
    T* M = copy.data();
    output out;
    {
      host_phase p(ctx, "stage1");
      for (std::size_t k = 0; k + 1 < n; ++k) {  // Algorithm 1, lines 3-8
        const T pivo = M[k * n1 + k];
        if (pivo == T(0)) {
          out.status = output::state::singular;
          out.step = static_cast<std::int64_t>(k);
          return out;
        }
        for (std::size_t i = k + 1; i < n; ++i) {
          const T coef = M[i * n1 + k] / pivo;
          for (std::size_t j = k; j < n1; ++j) M[i * n1 + j] -= coef * M[k * n1 + j];
        }
      }
    }
    if (M[(n - 1) * n1 + (n - 1)] == T(0)) {
      out.status = output::state::singular;
      out.step = static_cast<std::int64_t>(n - 1);
      return out;
    }
    out.x = back_substitution(M, n, ctx);
    return out;
  }
};

output solve(const input& in, run_context& ctx) { return solve_typed<algorithms_1_2>(in, ctx); }

}  // namespace
}  // namespace ema::gauss

EMA_VARIANT(gauss_seq, ema::gauss::kit::variant<&ema::gauss::solve>({
                           .name = "seq",
                           .algorithm = "elimination",
                           .backend = ema::backend::seq,
                           .role = ema::variant_role::source,
                           .description = "elimination without pivoting and back substitution, one thread",
                           .provenance = "Algorithms 1 and 2 of 003_7e2665a3d38c50fb.txt",
                           .not_applicable = &ema::gauss::needs_dominance,
                       }));
