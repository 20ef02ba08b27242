// gauss / cuda-kv2 — the source's CUDA version with stage 2 by Kv2: stage 1 by Code 3.1 (n - 1
// launches of 16 x 16 blocks), stage 2 by Code 3.3 (a shared-memory reduction per block of 64
// threads, one atomic addition per block): one launch per equation, n in all.
// Zudio et al., 003_7e2665a3d38c50fb.txt section 3.1; the interpretations are in source_kernels.cuh.
#include <algorithm>

#include "core/registry.hpp"
#include "problems/gauss/source_kernels.cuh"

namespace ema::gauss {
namespace {

using kv2_launch = source::source_launch<source::stage2_block>;

template <class T>
struct kv2 {
  static output run(const input& in, run_context& ctx) {
    ctx.note("launches", static_cast<std::int64_t>(in.n ? 1 + (in.n - 1) + in.n : 0));
    const int nthread = ctx.launch(kv2_launch{}).nthread;  // fixed: Code 3.3's shared reduction
    return source::solve<T>(in, ctx, [nthread](const T* s, T* r, int n, cudaStream_t stream) {
      for (int l = n - 1; l >= 0; --l) {
        const int k = n - 1 - l;
        source::k_subs_tras2<<<grid_for(k, nthread), nthread, 0, stream>>>(s, r, n, l, k);
        EMA_CUDA_CHECK_LAUNCH();
      }
    });
  }
};

output solve(const input& in, run_context& ctx) { return solve_typed<kv2>(in, ctx); }

}  // namespace
}  // namespace ema::gauss

EMA_VARIANT(gauss_cuda_kv2, ema::gauss::kit::variant<&ema::gauss::solve>({
                                .name = "cuda-kv2",
                                .algorithm = "elimination",
                                .backend = ema::backend::cuda,
                                .role = ema::variant_role::source,
                                .description = "the source's kernels: stage 1 per pivot, stage 2 by block reductions (Kv2)",
                                .provenance = "Codes 3.1 and 3.3 of 003_7e2665a3d38c50fb.txt",
                                .launch = ema::gauss::kv2_launch::fields,
                                .not_applicable = &ema::gauss::needs_dominance,
                            }));
