// rqa / microstates-omp — the source's microstate estimator of LAM (microstates.hpp) with OpenMP, microstates
// dealt to the threads: the source's multi-threaded CPU implementation (Table 1, time_cpu_multi).
#include <omp.h>

#include "core/registry.hpp"
#include "problems/rqa/microstates.hpp"

namespace ema::rqa {
namespace {

output microstates_omp(const input& in, run_context& ctx) {
  require_microstates(in);
  ctx.processors(omp_get_max_threads());
  double sum = 0, sum2 = 0;
  std::uint64_t used = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : sum, sum2, used)
  for (std::int64_t s = 0; s < static_cast<std::int64_t>(in.s.samples); ++s) add_microstate(in, static_cast<std::uint64_t>(s), sum, sum2, used);
  return microstates_estimate(in.s.samples, used, sum, sum2);
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_microstates_omp, ema::rqa::kit::variant<&ema::rqa::microstates_omp>({
                                     .name = "microstates-omp",
                                     .algorithm = "microstates",
                                     .backend = ema::backend::omp,
                                     .role = ema::variant_role::source,
                                     .description = "LAM from random Q x Q microstates, averaged (the source's estimator), OpenMP",
                                     .provenance = "section 1 and equation 1 of 000_d2722dce0c10bad2.txt",
                                     .not_applicable = &ema::rqa::microstates_fit,
                                 }));
