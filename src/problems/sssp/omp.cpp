// sssp / omp — ours: delta-stepping (Meyer and Sanders, "Δ-stepping: a parallelizable shortest
// path algorithm", J. Algorithms 2003), in the form of the GAP suite's `sssp`: vertices are binned
// by distance / Δ; the lowest non-empty bin is the frontier; its vertices relax all their edges in
// parallel (an atomic minimum on the distance), each improved vertex appended to the bin of its new
// distance in a bin list of its thread's own; then the threads' lists of the lowest non-empty bin
// make the next frontier, the current bin included (an edge lighter than Δ refills it). A vertex
// in a bin below the one being processed was settled there and is skipped. As in GAP, one parallel
// region per search (barriers between steps, not a fork and join per step) and the threads' bins
// copied into the next frontier in parallel, each at its offset; and GAP's bin fusion: a thread
// relaxes what it put back into the current bin at once while that holds under 1000 vertices.
// Δ: the parameter `delta`, 2 by default for weights in [1, 255] (recorded as the note `delta`), as
// GAP's own benchmark runs kron: with the prefetch, Δ 2 was 1.20x Δ 4 at kron-24 on the H200
// machine's 16 cores (docs/perf-notes.md; Δ 4 was the faster on the H100 machine's host without it).
// The distances of the edges `launch.prefetch` ahead (16 by default) are prefetched while relaxing:
// a neighbour's distance is a load from anywhere in the 64 MiB array at kron-24, and 1.21x came of
// it there.
// Note `bins`: frontiers processed, summed over the roots.
#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/sssp/sssp.hpp"

namespace ema::sssp {
namespace {

/// The launch setting: how far ahead the relaxations ask for the distances they will read
/// (issue 33: on kron the distance of a neighbour is a load from anywhere in 64 MiB).
struct omp_launch {
  int prefetch = 16;
  static constexpr launch_field fields[] = {
      {"prefetch", "edges (and frontier vertices) ahead whose distance (and edge range) is prefetched while relaxing, 0 to 64; 0: none (ema: 16)", 0,
       64},
  };
  std::array<int*, 1> members() { return {&prefetch}; }
};

output run(const input& in, run_context& ctx) {
  const csr_graph& g = in.g;
  const std::uint32_t delta = delta_of(ctx.params(), 2);
  const auto ahead = static_cast<std::uint64_t>(ctx.launch(omp_launch{}).prefetch);
  ctx.note("delta", static_cast<std::int64_t>(delta));
  const int threads = omp_get_max_threads();
  ctx.processors(threads);
  constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
  constexpr std::size_t fuse_below = 1000;  // GAP's kBinSizeThreshold
  std::vector<std::vector<std::vector<std::uint32_t>>> bins(static_cast<std::size_t>(threads));
  std::vector<std::uint64_t> lowest(static_cast<std::size_t>(threads)), taken(static_cast<std::size_t>(threads));
  std::vector<std::uint32_t> frontiers[2];
  std::uint64_t steps = 0;
  auto o = search_each_root(in, ctx, [&](std::uint32_t root, std::uint32_t* dist) {
    dist[root] = 0;
    frontiers[0].assign(1, root);
    // One parallel region per root; every thread keeps its own copy of the step's state (the
    // frontier's size, the bin), computed alike from the shared arrays between barriers.
#pragma omp parallel num_threads(threads)
    {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      auto& mine = bins[t];
      mine.clear();
      std::vector<std::uint32_t> fused;
      std::uint64_t current = 0, size = 1;
      int which = 0;
      for (;;) {
        const std::uint32_t* frontier = frontiers[which].data();
        const std::uint64_t floor = current * delta;
        auto relax = [&](std::uint32_t u) {
          const std::uint32_t du = std::atomic_ref<std::uint32_t>(dist[u]).load(std::memory_order_relaxed);
          if (du < floor) return;  // settled in a lower bin already
          const std::uint64_t end = g.offsets[u + 1];
          for (std::uint64_t i = g.offsets[u]; i < end; ++i) {
            if (ahead && i + ahead < end) __builtin_prefetch(dist + g.neighbours[i + ahead], 1, 3);
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
        };
#pragma omp for schedule(dynamic, 64) nowait
        for (std::int64_t k = 0; k < static_cast<std::int64_t>(size); ++k) {
          if (ahead && static_cast<std::uint64_t>(k) + ahead < size) {
            const std::uint32_t next = frontier[static_cast<std::uint64_t>(k) + ahead];
            __builtin_prefetch(dist + next, 0, 3);
            __builtin_prefetch(g.offsets.data() + next, 0, 3);
          }
          relax(frontier[k]);
        }
        // Bin fusion (GAP): what this thread put back into the current bin, while it is small, is
        // relaxed here at once rather than after a barrier (delta-stepping is label-correcting:
        // the order changes the work, never the distances).
        while (current < mine.size() && !mine[current].empty() && mine[current].size() < fuse_below) {
          fused.swap(mine[current]);
          mine[current].clear();
          for (const std::uint32_t u : fused) relax(u);
          fused.clear();
        }
#pragma omp barrier
        // The lowest non-empty bin over the threads, the current one included.
        std::uint64_t own = none;
        for (std::uint64_t b = current; b < mine.size(); ++b)
          if (!mine[b].empty()) {
            own = b;
            break;
          }
        lowest[t] = own;
#pragma omp barrier
        std::uint64_t next = none;
        for (const auto b : lowest) next = std::min(next, b);
        if (next == none) break;  // every thread leaves here, after the same barrier
        taken[t] = next < mine.size() ? mine[next].size() : 0;
#pragma omp barrier
        std::uint64_t at = 0, total = 0;
        for (std::size_t i = 0; i < taken.size(); ++i) (i < t ? at : total) += taken[i];
        total += at;
#pragma omp single
        {
          auto& into = frontiers[1 - which];
          if (into.size() < total) into.resize(std::max<std::uint64_t>(total, 2 * into.size()));
          ++steps;
        }  // (a barrier: the next frontier is large enough)
        if (taken[t]) {
          std::copy(mine[next].begin(), mine[next].end(), frontiers[1 - which].begin() + static_cast<std::ptrdiff_t>(at));
          mine[next].clear();
        }
        which = 1 - which;
        current = next;
        size = total;
#pragma omp barrier
      }
    }
  });
  ctx.note("bins", static_cast<std::int64_t>(steps));
  return o;
}

}  // namespace
}  // namespace ema::sssp

EMA_VARIANT(
    sssp_omp,
    ema::sssp::kit::variant<&ema::sssp::run>({
        .name = "omp",
        .backend = ema::backend::omp,
        .role = ema::variant_role::ours,
        .description = "ours: delta-stepping (delta 2 unless set), thread-local bins, bin fusion, atomic-minimum relaxations (the GAP suite's form)",
        .provenance = "Meyer and Sanders 2003; the GAP suite's sssp",
        .launch = ema::sssp::omp_launch::fields,
        .tuning = ema::sssp::delta_tuning,
    }));
