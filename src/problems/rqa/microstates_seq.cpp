// rqa / microstates-seq — the source's microstate estimator of LAM (microstates.hpp), one thread: the source's
// "cpu" implementation with one thread (Table 1, time_cpu).
#include "core/registry.hpp"
#include "problems/rqa/microstates.hpp"

namespace ema::rqa {
namespace {

output microstates_seq(const input& in, run_context&) {
  require_microstates(in);
  double sum = 0, sum2 = 0;
  std::uint64_t used = 0;
  for (std::uint64_t s = 0; s < in.s.samples; ++s) add_microstate(in, s, sum, sum2, used);
  return microstates_estimate(in.s.samples, used, sum, sum2);
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_microstates_seq, ema::rqa::kit::variant<&ema::rqa::microstates_seq>({
                                     .name = "microstates-seq",
                                     .algorithm = "microstates",
                                     .backend = ema::backend::seq,
                                     .role = ema::variant_role::source,
                                     .description = "LAM from random Q x Q microstates, averaged (the source's estimator), one thread",
                                     .provenance = "section 1 and equation 1 of 000_d2722dce0c10bad2.txt",
                                     .not_applicable = &ema::rqa::microstates_fit,
                                 }));
