// Problem `sssp`'s verifier, independent of every variant (GAP's check, and Graph500's SSSP
// validation). The reference (once per point): Dijkstra with a binary heap from each root,
// summarised as the vertices reached, the largest distance, the sum of distances and the input
// edges of the part reached. Contract, checked on every run for every root, in O(n + m):
//   1. the root's distance is 0;
//   2. no edge can still relax: for every edge u -> v from a reached vertex, v is reached and
//      dist[v] <= dist[u] + w;
//   3. every reached vertex other than the root has a tight edge into it, dist[u] + w = dist[v]
//      (with 2 and positive weights, every distance is that of a shortest path);
//   4. the vertices reached, the largest distance and the sum of distances equal Dijkstra's (this
//      also settles zero-weight edges, which a file may hold).
// Where Dijkstra's distances are kept (graph_problem::keeps_values), a run whose distances equal
// them meets the contract, checked in O(n) a root; one that differs is judged by the contract,
// which names what it breaks.
// The result: per root its source, vertices reached, largest distance and sum of distances, and
// `edges`, the rate's count.
#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <queue>

#include "problems/sssp/sssp.hpp"

namespace ema::sssp {
namespace {

std::string check_root(const csr_graph& g, const root_summary& expected, const std::uint32_t* dist) {
  const std::uint32_t root = expected.source;
  if (dist[root] != 0) return fmt::format("the root's distance is {}, not 0", dist[root]);
  const auto n = static_cast<std::int64_t>(g.n);
  std::vector<unsigned char> tight(g.n, 0);
  tight[root] = 1;
  std::string bad;
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t ui = 0; ui < n; ++ui) {
    const auto u = static_cast<std::uint32_t>(ui);
    if (dist[u] == unreached) continue;
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
      const std::uint32_t v = g.neighbours[i];
      const std::uint64_t through = std::uint64_t{dist[u]} + g.weights[i];
      if (dist[v] == unreached || dist[v] > through) {
#pragma omp critical(sssp_verify)
        if (bad.empty())
          bad = dist[v] == unreached ? fmt::format("vertex {} (distance {}) has an edge to vertex {}, which is not reached", u, dist[u], v)
                                     : fmt::format("vertex {} has distance {}, but the edge from {} (distance {}, weight {}) gives {}", v, dist[v], u,
                                                   dist[u], g.weights[i], through);
        continue;
      }
      if (dist[v] == through) {
#pragma omp atomic write
        tight[v] = 1;
      }
    }
  }
  if (!bad.empty()) return bad;
  for (std::uint64_t v = 0; v < g.n; ++v)
    if (dist[v] != unreached && !tight[v]) return fmt::format("vertex {} has distance {}, but no edge into it gives that distance", v, dist[v]);
  return graph_problem::compare(graph_problem::summarise(g, root, dist), expected, "distance");
}

}  // namespace

void dijkstra(const csr_graph& g, std::uint32_t root, std::uint32_t* dist) {
  using entry = std::pair<std::uint32_t, std::uint32_t>;  // distance, vertex
  std::priority_queue<entry, std::vector<entry>, std::greater<>> heap;
  dist[root] = 0;
  heap.push({0, root});
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d != dist[u]) continue;  // a stale entry: u was settled closer
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
      const std::uint32_t v = g.neighbours[i], through = d + g.weights[i];
      if (through < dist[v]) {
        dist[v] = through;
        heap.push({through, v});
      }
    }
  }
}

graph_problem::reference_answer traits::reference(const input& in) {
  graph_problem::reference_answer out;
  const std::uint64_t n = in.g.n, k = in.roots.size();
  out.roots.resize(k);
  const bool keep = graph_problem::keeps_values(in.g, k);
  if (keep) out.values.resize(k * n);
  const auto roots = static_cast<std::int64_t>(k);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t r = 0; r < roots; ++r) {
    std::vector<std::uint32_t> dist(n, unreached);
    dijkstra(in.g, in.roots[r], dist.data());
    out.roots[r] = graph_problem::summarise(in.g, in.roots[r], dist.data());
    if (keep) std::copy(dist.begin(), dist.end(), out.values.begin() + static_cast<std::ptrdiff_t>(r * n));
  }
  return out;
}

outcome traits::check(const input& in, const graph_problem::reference_answer& reference, const output& got) {
  outcome o;
  const auto& expected = reference.roots;
  const std::uint64_t n = in.g.n, k = expected.size();
  o.result_json = graph_problem::result_json(expected, "max_dist", "dist_sum");
  if (got.dist.size() != k * n) {
    o.reason = fmt::format("the output holds {} distances, not {} ({} roots of {} vertices)", got.dist.size(), k * n, k, n);
    return o;
  }
  for (std::uint64_t r = 0; r < k; ++r) {
    const auto* dist = got.dist.data() + r * n;
    if (!reference.values.empty() && graph_problem::same_values(dist, reference.values.data() + r * n, n)) continue;
    auto why = check_root(in.g, expected[r], dist);
    if (why.empty() && !reference.values.empty())  // Dijkstra's distances and the contract disagree: say so, never pass
      for (std::uint64_t v = 0; v < n && why.empty(); ++v)
        if (dist[v] != reference.values[r * n + v])
          why = fmt::format("vertex {} has distance {}, Dijkstra's {}", v, dist[v], reference.values[r * n + v]);
    if (!why.empty()) {
      o.reason = fmt::format("root {} (vertex {}): {}", r, expected[r].source, why);
      return o;
    }
  }
  o.verified = true;
  return o;
}

}  // namespace ema::sssp
