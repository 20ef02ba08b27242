// sssp / omp — ours: delta-stepping (Meyer and Sanders, "Δ-stepping: a parallelizable shortest
// path algorithm", J. Algorithms 2003), in the form of the GAP suite's `sssp`: vertices are binned
// by distance / Δ; the lowest non-empty bin is the frontier; its vertices relax all their edges in
// parallel (an atomic minimum on the distance), each improved vertex appended to the bin of its new
// distance in a bin list of its thread's own; then the threads' lists of the lowest non-empty bin
// make the next frontier, the current bin included (an edge lighter than Δ refills it). A vertex
// in a bin below the one being processed was settled there and is skipped.
// Δ: the parameter `delta`, 32 by default for weights in [1, 255] (recorded as the note `delta`).
// Note `bins`: frontiers processed, summed over the roots.
#include <atomic>
#include <limits>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/sssp/sssp.hpp"

namespace ema::sssp {
namespace {

output run(const input& in, run_context& ctx) {
  const csr_graph& g = in.g;
  const std::uint32_t delta = delta_of(ctx.params(), 32);
  ctx.note("delta", static_cast<std::int64_t>(delta));
  const int threads = omp_get_max_threads();
  ctx.processors(threads);
  std::vector<std::vector<std::vector<std::uint32_t>>> bins(static_cast<std::size_t>(threads));
  std::vector<std::uint32_t> frontier;
  std::uint64_t steps = 0;
  auto o = search_each_root(in, ctx, [&](std::uint32_t root, std::uint32_t* dist) {
    for (auto& b : bins) b.clear();
    dist[root] = 0;
    frontier.assign(1, root);
    std::uint64_t current = 0;
    for (;;) {
      const auto size = static_cast<std::int64_t>(frontier.size());
      const std::uint64_t floor = current * delta;
#pragma omp parallel
      {
        auto& mine = bins[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 64)
        for (std::int64_t k = 0; k < size; ++k) {
          const std::uint32_t u = frontier[static_cast<std::size_t>(k)];
          const std::uint32_t du = std::atomic_ref<std::uint32_t>(dist[u]).load(std::memory_order_relaxed);
          if (du < floor) continue;  // settled in a lower bin already
          for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
            const std::uint32_t through = du + g.weights[i];
            std::atomic_ref<std::uint32_t> to(dist[g.neighbours[i]]);
            for (std::uint32_t now = to.load(std::memory_order_relaxed); through < now;)
              if (to.compare_exchange_weak(now, through, std::memory_order_relaxed)) {
                const std::size_t bin = through / delta;
                if (mine.size() <= bin) mine.resize(bin + 1);
                mine[bin].push_back(g.neighbours[i]);
                break;
              }
          }
        }
      }
      ++steps;
      // The lowest non-empty bin, the current one included.
      std::uint64_t next = std::numeric_limits<std::uint64_t>::max();
      for (const auto& b : bins)
        for (std::uint64_t i = current; i < b.size() && i < next; ++i)
          if (!b[i].empty()) {
            next = i;
            break;
          }
      if (next == std::numeric_limits<std::uint64_t>::max()) break;
      frontier.clear();
      for (auto& b : bins)
        if (next < b.size()) {
          frontier.insert(frontier.end(), b[next].begin(), b[next].end());
          b[next].clear();
        }
      current = next;
    }
  });
  ctx.note("bins", static_cast<std::int64_t>(steps));
  return o;
}

}  // namespace
}  // namespace ema::sssp

EMA_VARIANT(sssp_omp, ema::sssp::kit::variant<&ema::sssp::run>({
    .name = "omp",
    .backend = ema::backend::omp,
    .role = ema::variant_role::ours,
    .description = "ours: delta-stepping (delta 32 unless set), thread-local bins, atomic-minimum relaxations (the GAP suite's form)",
    .provenance = "Meyer and Sanders 2003; the GAP suite's sssp",
    .tuning = ema::sssp::delta_tuning,
}));
