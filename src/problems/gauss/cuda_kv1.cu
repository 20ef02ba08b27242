// gauss / cuda-kv1 — the source's CUDA version with stage 2 by Kv1: stage 1 by Code 3.1 (n - 1
// launches of 16 x 16 blocks), stage 2 by Code 3.2 (atomic additions into the unknown) followed by
// the "special external thread" that divides by the pivot: two launches per equation, 2n in all.
// Zudio et al., 003_7e2665a3d38c50fb.txt section 3.1; the interpretations are in source_kernels.cuh.
#include "core/registry.hpp"
#include "problems/gauss/source_kernels.cuh"

namespace ema::gauss {
namespace {

using kv1_launch = source::source_launch<1024>;

template <class T>
struct kv1 {
  static output run(const input& in, run_context& ctx) {
    ctx.note("launches", static_cast<std::int64_t>(in.n ? 1 + (in.n - 1) + 2 * in.n : 0));
    const int nthread = ctx.launch(kv1_launch{}).nthread;
    return source::solve<T>(in, ctx, [nthread](const T* s, T* r, int n, cudaStream_t stream) {
      for (int l = n - 1; l >= 0; --l) {
        const int k = n - 1 - l;
        source::k_subs_tras1<<<grid_for(k + 1, nthread), nthread, 0, stream>>>(s, r, n, l, k);
        EMA_CUDA_CHECK_LAUNCH();
        source::k_divide<<<1, 1, 0, stream>>>(s, r, n, l, k);
        EMA_CUDA_CHECK_LAUNCH();
      }
    });
  }
};

output solve(const input& in, run_context& ctx) { return solve_typed<kv1>(in, ctx); }

}  // namespace
}  // namespace ema::gauss

EMA_VARIANT(gauss_cuda_kv1, ema::gauss::kit::variant<&ema::gauss::solve>({
                                .name = "cuda-kv1",
                                .algorithm = "elimination",
                                .backend = ema::backend::cuda,
                                .role = ema::variant_role::source,
                                .description = "the source's kernels: stage 1 per pivot, stage 2 by atomic additions (Kv1)",
                                .provenance = "Codes 3.1 and 3.2 of 003_7e2665a3d38c50fb.txt",
                                .launch = ema::gauss::kv1_launch::fields,
                                .not_applicable = &ema::gauss::needs_dominance,
                            }));
