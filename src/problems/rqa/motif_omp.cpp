// rqa / motif-omp — ours: the motif estimator of motif_seq.cpp with its 100 batches dealt to the
// threads; each batch draws the same cells as in motif-seq, so the estimates are identical.
#include <omp.h>

#include "core/registry.hpp"
#include "problems/rqa/rqa.hpp"

namespace ema::rqa {
namespace {

output motif_omp(const input& in, run_context& ctx) {
  ctx.processors(omp_get_max_threads());
  return run_motif(in, [&](std::uint64_t first, std::vector<motif_counts>& batches) {
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(batches.size()); ++b)
      batches[static_cast<std::size_t>(b)] = motif_batch(in, first + static_cast<std::uint64_t>(b));
  });
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_motif_omp, ema::rqa::kit::variant<&ema::rqa::motif_omp>({
                               .name = "motif-omp",
                               .algorithm = "motif",
                               .backend = ema::backend::omp,
                               .role = ema::variant_role::ours,
                               .description = "LAM and DET from random cells, lines traced only as far as vmin/lmin (unbiased), OpenMP",
                               .provenance = "ours",
                           }));
