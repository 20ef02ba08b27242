// rqa / motif-seq — ours: an unbiased estimator of LAM and DET from random cells, one thread. LAM is
// the fraction of recurrent cells that lie on a vertical line of at least vmin (for vmin = 2:
// 1 - N(010) / N(1), the isolated cells among the recurrent ones), DET the same along diagonals
// with lmin; a drawn recurrent cell's line is traced up and down only as far as that decides.
// Cells are uniform over the plot outside the Theiler window, so nothing is cut short (unlike a
// microstate's edge). 100 batches give the standard error (batch means of the ratio estimator).
#include "core/registry.hpp"
#include "problems/rqa/rqa.hpp"

namespace ema::rqa {
namespace {

output motif_seq(const input& in, run_context&) {
  return run_motif(in, [&](std::uint64_t first, std::vector<motif_counts>& batches) {
    for (std::uint64_t b = 0; b < batches.size(); ++b) batches[b] = motif_batch(in, first + b);
  });
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_motif_seq, ema::rqa::kit::variant<&ema::rqa::motif_seq>({
                               .name = "motif-seq",
                               .algorithm = "motif",
                               .backend = ema::backend::seq,
                               .role = ema::variant_role::ours,
                               .description = "LAM and DET from random cells, lines traced only as far as vmin/lmin (unbiased), one thread",
                               .provenance = "ours",
                           }));
