// sort / gnu-parallel — the anchor a user would reach for with OpenMP: libstdc++'s parallel mode,
// __gnu_parallel::sort (a multiway mergesort over the OpenMP threads), on a copy of the keys.
#include <omp.h>
#include <parallel/algorithm>

#include "core/registry.hpp"
#include "problems/sort/sort.hpp"

namespace ema::sort {
namespace {

template <class K>
struct parallel_mode {
  static output run(const input& in, run_context& ctx) {
    auto keys = copy_of<K>(in);
    {
      host_phase kernel(ctx, "kernel");
      __gnu_parallel::sort(keys.data(), keys.data() + keys.size());
    }
    ctx.note("threads", omp_get_max_threads());
    ctx.processors(omp_get_max_threads());
    return owned(std::move(keys));
  }
};

output run(const input& in, run_context& ctx) { return run_typed<parallel_mode>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_gnu_parallel, ema::sort::kit::variant<&ema::sort::run>({
                                   .name = "gnu-parallel",
                                   .algorithm = "std",
                                   .backend = ema::backend::omp,
                                   .role = ema::variant_role::anchor,
                                   .description = "__gnu_parallel::sort: libstdc++'s parallel mode, a multiway mergesort on the OpenMP threads",
                                   .provenance = "__gnu_parallel::sort",
                               }));
