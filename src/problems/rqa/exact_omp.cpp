// rqa / exact-omp — exact-seq's line walk (lines.hpp) with OpenMP: the tasks (8 columns or 8 upper
// diagonals each, sharing every tile of the series they read) dealt dynamically, one tally per
// thread, added at the end; the histograms are exactly exact-seq's. Θ(N^2 m) work, Θ(threads · N)
// memory.
#include <omp.h>

#include "core/registry.hpp"
#include "problems/rqa/lines.hpp"

namespace ema::rqa {
namespace {

output exact_omp(const input& in, run_context& ctx) {
  const plot p = in.view();
  ctx.processors(omp_get_max_threads());
  std::vector<std::uint64_t> vertical(p.N + 1, 0), upper(p.N + 1, 0);
  const auto pl = lines::plan_for(p);
#pragma omp parallel
  {
    auto t = lines::make_tally(p, vertical, upper);
#pragma omp for schedule(dynamic, 1) nowait
    for (std::int64_t task = 0; task < static_cast<std::int64_t>(pl.tasks); ++task) lines::run_task(p, pl, static_cast<std::size_t>(task), t);
#pragma omp critical(rqa_exact_omp)
    lines::add(t, vertical, upper);
  }
  return {lines::assemble(p, std::move(vertical), upper)};
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_exact_omp, ema::rqa::kit::variant<&ema::rqa::exact_omp>({
                               .name = "exact-omp",
                               .algorithm = "exact",
                               .backend = ema::backend::omp,
                               .role = ema::variant_role::ours,
                               .description = "exact quantifiers: exact-seq's column and diagonal tiles dealt to the threads (OpenMP)",
                               .provenance = "ours (the exact quantities 000_d2722dce0c10bad2.txt estimates)",
                           }));
