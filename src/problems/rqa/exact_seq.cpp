// rqa / exact-seq — the exact quantifiers from the whole recurrence plot, one thread. The plot is
// never stored: rows are evaluated one after another and each cell updates the open vertical run
// of its column and the open diagonal run of its offset (line_counter), so lines crossing rows are
// carried. Θ(N^2 m) time, Θ(N) memory.
#include "core/registry.hpp"
#include "problems/rqa/rqa.hpp"

namespace ema::rqa {
namespace {

output exact(const input& in, run_context&) {
  const std::size_t N = in.vectors();
  line_counter lines(N);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t gap = i > j ? i - j : j - i;
      if (gap >= in.s.theiler) lines.count_cell_outside_window();
      lines.cell(i, j, in.recurrent(i, j));
    }
  return {lines.finish()};
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_exact_seq, {"rqa", "exact-seq", ema::backend::seq,
                            "exact RR, DET, L, ENTR, LAM, TT from the whole plot, row by row, one thread",
                            "ours (the exact quantities 000_d2722dce0c10bad2.txt estimates)",
                            &ema::rqa::kit::run<&ema::rqa::exact>});
