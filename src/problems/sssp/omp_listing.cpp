// sssp / omp-listing — Algorithm 2 of Nogueira, 004_96c7929830a11cf7.txt (SSSP in OpenMP), as written:
// Bellman-Ford rounds over the edge list until a round changes nothing. Each round, in a parallel
// region, thread t takes the edges [t · per, (t + 1) · per) with per = numEdges / numThreads + 1
// and relaxes each: if dist[Origem] + Custo < dist[Destino], the destination gets the shorter
// distance and `finished` is cleared. A search costs Θ(rounds · m), the rounds as many as the
// longest shortest path's edges (at most n - 1).
// How the listing was read:
// - lines 10-13 ("if inicio = numEdges then inicio > numEdges ...") clamp the range to the edge
//   count: inicio and fim at most numEdges;
// - the update of dist[Destino] is a race between threads relaxing the same vertex; read as an
//   atomic minimum (a compare-and-swap loop), so a shorter distance is never overwritten by a
//   longer one; `finished = false` from any thread is a relaxed atomic store;
// - an origin not yet reached (infinite distance) relaxes nothing (the listing's INT_MAX + Custo
//   would wrap);
// - `preNode`, the predecessor, is not kept (the verifier needs distances only).
// The edge list is the CSR's entries in order, each with its origin (input::edge_origin).
// Note `rounds`: the rounds summed over the roots.
#include <algorithm>
#include <atomic>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/sssp/sssp.hpp"

namespace ema::sssp {
namespace {

output run(const input& in, run_context& ctx) {
  const csr_graph& g = in.g;
  const std::uint64_t num_edges = g.neighbours.size();
  std::uint64_t rounds = 0;
  ctx.processors(omp_get_max_threads());
  auto o = search_each_root(in, ctx, [&](std::uint32_t root, std::uint32_t* dist) {
    dist[root] = 0;
    bool finished = false;
    while (!finished) {
      finished = true;
      ++rounds;
#pragma omp parallel
      {
        const auto thread_id = static_cast<std::uint64_t>(omp_get_thread_num());
        const auto num_threads = static_cast<std::uint64_t>(omp_get_num_threads());
        const std::uint64_t per = num_edges / num_threads + 1;
        const std::uint64_t inicio = std::min(thread_id * per, num_edges), fim = std::min((thread_id + 1) * per, num_edges);
        for (std::uint64_t i = inicio; i < fim; ++i) {
          const std::uint32_t from = std::atomic_ref<std::uint32_t>(dist[in.edge_origin[i]]).load(std::memory_order_relaxed);
          if (from == unreached) continue;
          const std::uint32_t through = from + g.weights[i];
          std::atomic_ref<std::uint32_t> to(dist[g.neighbours[i]]);
          for (std::uint32_t now = to.load(std::memory_order_relaxed); through < now;)
            if (to.compare_exchange_weak(now, through, std::memory_order_relaxed)) {
              std::atomic_ref<bool>(finished).store(false, std::memory_order_relaxed);
              break;
            }
        }
      }
    }
  });
  ctx.note("rounds", static_cast<std::int64_t>(rounds));
  return o;
}

}  // namespace
}  // namespace ema::sssp

EMA_VARIANT(sssp_omp_listing, ema::sssp::kit::variant<&ema::sssp::run, &ema::sssp::with_edge_origin>({
                                  .name = "omp-listing",
                                  .backend = ema::backend::omp,
                                  .role = ema::variant_role::source,
                                  .description = "Algorithm 2 as written: edge-parallel Bellman-Ford rounds over the edge list until nothing changes",
                                  .provenance = "Algorithm 2 of 004_96c7929830a11cf7.txt",
                              }));
