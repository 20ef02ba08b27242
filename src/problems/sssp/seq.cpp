// sssp / seq — Dijkstra's algorithm with a binary heap on one thread (lazy deletion: a vertex
// improved again is pushed again, stale entries skipped): the reference a user would write, and
// the baseline GAP compares with.
#include "core/registry.hpp"
#include "problems/sssp/sssp.hpp"

namespace ema::sssp {
namespace {

output run(const input& in, run_context& ctx) {
  return search_each_root(in, ctx, [&](std::uint32_t root, std::uint32_t* dist) { dijkstra(in.g, root, dist); });
}

}  // namespace
}  // namespace ema::sssp

EMA_VARIANT(sssp_seq, ema::sssp::kit::variant<&ema::sssp::run>({
                          .name = "seq",
                          .algorithm = "dijkstra",
                          .backend = ema::backend::seq,
                          .role = ema::variant_role::anchor,
                          .description = "Dijkstra with a binary heap on one thread (the reference)",
                          .provenance = "Dijkstra 1959; std::priority_queue",
                      }));
