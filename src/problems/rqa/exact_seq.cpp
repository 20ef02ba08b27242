// rqa / exact-seq — the exact quantifiers from the whole recurrence plot, one thread. The plot is
// never stored: rows are evaluated one after another and each cell extends or ends the open run
// of its column and of its diagonal, so lines crossing rows are carried: the whole plot as one
// band of bands.hpp. Θ(N^2 m) time, Θ(N) memory.
#include "core/registry.hpp"
#include "problems/rqa/bands.hpp"

namespace ema::rqa {
namespace {

output exact(const input& in, run_context&) {
  const std::size_t N = in.vectors();
  std::vector<band_counter> whole;
  whole.emplace_back(N, 0, N);
  count_rows(in, whole.front(), 0, N);
  return {merge_bands(N, whole)};
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_exact_seq, {"rqa", "exact-seq", ema::backend::seq,
                            "exact RR, DET, L, ENTR, LAM, TT from the whole plot, row by row, one thread",
                            "ours (the exact quantities 000_d2722dce0c10bad2.txt estimates)",
                            &ema::rqa::kit::run<&ema::rqa::exact>});
