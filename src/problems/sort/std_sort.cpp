// sort / std-sort — the anchor a user would reach for on one thread: std::sort (libstdc++'s
// introsort) on a copy of the keys.
#include <algorithm>

#include "core/registry.hpp"
#include "problems/sort/sort.hpp"

namespace ema::sort {
namespace {

template <class K>
struct standard {
  static output run(const input& in, run_context& ctx) {
    auto keys = copy_of<K>(in);
    {
      host_phase kernel(ctx, "kernel");
      std::sort(keys.data(), keys.data() + keys.size());
    }
    return owned(std::move(keys));
  }
};

output run(const input& in, run_context& ctx) { return run_typed<standard>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_std_sort, ema::sort::kit::variant<&ema::sort::run>({
                               .name = "std-sort",
                               .algorithm = "std",
                               .backend = ema::backend::seq,
                               .role = ema::variant_role::anchor,
                               .description = "std::sort on one thread (libstdc++'s introsort)",
                               .provenance = "std::sort",
                           }));
