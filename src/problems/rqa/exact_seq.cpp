// rqa / exact-seq — the exact quantifiers from the whole recurrence plot, one thread: every column
// and every upper diagonal walked in tiles of 64 cells, lines carried across tiles (lines.hpp).
// The plot is never stored. Θ(N^2 m) time, Θ(N) memory.
#include "core/registry.hpp"
#include "problems/rqa/lines.hpp"

namespace ema::rqa {
namespace {

output exact(const input& in, run_context&) {
  const plot p = in.view();
  std::vector<std::uint64_t> vertical(p.N + 1, 0), upper(p.N + 1, 0);
  const auto pl = lines::plan_for(p);
  auto t = lines::make_tally(p, vertical, upper);
  for (std::size_t task = 0; task < pl.tasks; ++task) lines::run_task(p, pl, task, t);
  lines::add(t, vertical, upper);
  return {lines::assemble(p, std::move(vertical), upper)};
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_exact_seq, ema::rqa::kit::variant<&ema::rqa::exact>({
                               .name = "exact-seq",
                               .algorithm = "exact",
                               .backend = ema::backend::seq,
                               .role = ema::variant_role::ours,
                               .description = "exact RR, DET, L, ENTR, LAM, TT: every column and diagonal in 64-cell bit tiles, one thread",
                               .provenance = "ours (the exact quantities 000_d2722dce0c10bad2.txt estimates)",
                           }));
