// bfs / omp-listing — Algorithm 8 of Nogueira, 004_96c7929830a11cf7.txt (BFS in OpenMP), as written: level by
// level (`nivel` from 0), a parallel loop over every vertex j; a vertex at the current level
// relaxes each neighbour v (`nivel + 1 < distancia[v]` gives it depth nivel + 1) and raises the
// flag `valueChange`; the loop over levels stops when a level changed nothing. Each level scans
// all n vertices, so a search costs Θ(n · depth + m): quadratic in n on a grid (depth ~ 2 sqrt n).
// How the listing was read:
// - line 6 resets the shared `changed` inside the parallel loop and line 17 sets it from
//   `valueChange`, both from every iteration: a data race whose intent is "this level changed
//   something"; read as `valueChange` cleared before the loop (line 3), raised by any thread that
//   lowers a depth, and `changed = valueChange` once the loop is done;
// - threads lowering the same neighbour's depth all write the same value, nivel + 1; those writes
//   and the reads of other threads are relaxed atomics here (the listing's plain accesses would be
//   a data race in C++);
// - it keeps depths only (`distancia`), no parents.
// The note `levels` counts the passes over the vertices (the depth of the search plus the last,
// empty one).
#include <atomic>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/bfs/bfs.hpp"

namespace ema::bfs {
namespace {

output run(const input& in, run_context& ctx) {
  const csr_graph& g = in.g;
  const auto n = static_cast<std::int64_t>(g.n);
  std::uint64_t levels = 0;
  ctx.processors(omp_get_max_threads());
  auto o = search_each_root(in, ctx, false, [&](std::uint32_t root, std::uint32_t* distancia, std::uint32_t*) {
    distancia[root] = 0;
    bool changed = true;
    for (std::uint32_t nivel = 0; changed; ++nivel) {
      int value_change = 0;
#pragma omp parallel for schedule(dynamic, 1024)
      for (std::int64_t j = 0; j < n; ++j) {
        if (std::atomic_ref<std::uint32_t>(distancia[j]).load(std::memory_order_relaxed) != nivel) continue;
        for (std::uint64_t i = g.offsets[j]; i < g.offsets[j + 1]; ++i) {
          std::atomic_ref<std::uint32_t> d(distancia[g.neighbours[i]]);
          if (nivel + 1 < d.load(std::memory_order_relaxed)) {
            d.store(nivel + 1, std::memory_order_relaxed);
            std::atomic_ref<int>(value_change).store(1, std::memory_order_relaxed);
          }
        }
      }
      changed = value_change != 0;
      ++levels;
    }
  });
  ctx.note("levels", static_cast<std::int64_t>(levels));
  return o;
}

}  // namespace
}  // namespace ema::bfs

EMA_VARIANT(bfs_omp_listing, ema::bfs::kit::variant<&ema::bfs::run>({
                                 .name = "omp-listing",
                                 .backend = ema::backend::omp,
                                 .role = ema::variant_role::source,
                                 .description = "Algorithm 8 as written: each level a parallel scan of every vertex, until a level changes nothing",
                                 .provenance = "Algorithm 8 of 004_96c7929830a11cf7.txt",
                             }));
