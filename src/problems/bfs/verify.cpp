// Problem `bfs`'s verifier, after Graph500's validation and GAP's: independent of every variant.
// The reference (once per point): a search from each root with a FIFO queue, summarised as the
// vertices reached, the largest depth, the sum of depths and the input edges of the part reached.
// Contract, checked on every run for every root, in O(n + m) (in O(n log d) where the reference's
// depths are kept: a run whose depths equal them meets 1, 2, 3 and 5, and 4 asks of each vertex
// one edge, found in a sorted neighbour list; a run that differs is judged by the contract below,
// which names what it breaks):
//   1. the root's depth is 0 (and it is its own parent, where the variant gives parents);
//   2. every edge u -> v from a vertex reached reaches v, and depth[v] <= depth[u] + 1;
//   3. every vertex reached other than the root has an edge into it from a vertex one level up
//      (with 2, this makes every depth the length of a shortest path: the depths are exact);
//   4. where parents are given: a reached vertex's parent is reached, one level up, and has an
//      edge to it; a vertex not reached has no parent;
//   5. the vertices reached, the largest depth and the sum of depths equal the reference's.
// The result: per root its source, vertices reached, largest depth and sum of depths, and `edges`,
// the edges traversed over all roots (the rate's count).
#include <algorithm>
#include <fmt/format.h>

#include "problems/bfs/bfs.hpp"

namespace ema::bfs {
namespace {

/// The first violation of the contract by root r's answer, or "". Two parallel passes: one over
/// the edges of the reached vertices (rule 2, and marks for rules 3 and 4: an edge from one level
/// up, an edge from the parent), one over the vertices (the first vertex breaking 3 or 4 named).
std::string check_root(const input& in, const root_summary& expected, const std::uint32_t* depth, const std::uint32_t* parent) {
  const csr_graph& g = in.g;
  const std::uint32_t root = expected.source;
  if (depth[root] != 0) return fmt::format("the root's depth is {}, not 0", depth[root]);
  if (parent && parent[root] != root) return fmt::format("the root's parent is {}, not the root itself", parent[root]);
  const auto n = static_cast<std::int64_t>(g.n);
  constexpr unsigned char fed = 1, parent_edge = 2;  // an edge into it from one level up; from its parent
  std::vector<unsigned char> mark(g.n, 0);
  mark[root] = fed | parent_edge;
  std::string bad;
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t ui = 0; ui < n; ++ui) {
    const auto u = static_cast<std::uint32_t>(ui);
    if (depth[u] == unreached) continue;
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
      const std::uint32_t v = g.neighbours[i];
      if (depth[v] == unreached || depth[v] > depth[u] + 1) {
#pragma omp critical(bfs_verify)
        if (bad.empty())
          bad = depth[v] == unreached ? fmt::format("vertex {} (depth {}) has an edge to vertex {}, which is not reached", u, depth[u], v)
                                      : fmt::format("vertex {} has depth {}, but its neighbour {} has depth {}", v, depth[v], u, depth[u]);
        continue;
      }
      if (depth[v] == depth[u] + 1) {
        const unsigned char m = parent && parent[v] == u ? fed | parent_edge : fed;
        if ((mark[v] & m) != m) {
#pragma omp atomic update
          mark[v] |= m;
        }
      }
    }
  }
  if (!bad.empty()) return bad;
  // The first vertex (lowest id) that breaks rule 3 or 4, so the message does not depend on threads.
  std::int64_t first = n;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (std::int64_t vi = 0; vi < n; ++vi) {
    const auto v = static_cast<std::uint32_t>(vi);
    const bool reached = depth[v] != unreached;
    const bool broken = (reached && !(mark[v] & fed)) || (parent && v != root && (reached ? !(mark[v] & parent_edge) : parent[v] != unreached));
    if (broken && vi < first) first = vi;
  }
  if (first < n) {
    const auto v = static_cast<std::uint32_t>(first);
    if (depth[v] != unreached && !(mark[v] & fed))
      return fmt::format("vertex {} has depth {}, but no edge into it comes from depth {}", v, depth[v], depth[v] - 1);
    const std::uint32_t p = parent[v];
    if (depth[v] == unreached) return fmt::format("vertex {} is not reached, yet has parent {}", v, p);
    if (p >= g.n || depth[p] == unreached || depth[p] + 1 != depth[v])
      return fmt::format("vertex {} (depth {}) has parent {}, which is not one level up", v, depth[v], p);
    return fmt::format("vertex {} has parent {}, but no edge {} -> {}", v, p, p, v);
  }
  return graph_problem::compare(graph_problem::summarise(g, root, depth), expected, "depth");
}

/// Whether the edge u -> v is in the graph (neighbour lists are sorted: inputs/graph.hpp).
bool has_edge(const csr_graph& g, std::uint32_t u, std::uint32_t v) {
  const auto* first = g.neighbours.data() + g.offsets[u];
  const auto* last = g.neighbours.data() + g.offsets[u + 1];
  return std::binary_search(first, last, v);
}

/// Root r's answer against the reference's depths `want`: "" where it meets the contract; else the
/// contract's own check names the first thing it breaks.
std::string check_against(const input& in, const root_summary& expected, const std::uint32_t* want, const std::uint32_t* depth,
                          const std::uint32_t* parent) {
  const csr_graph& g = in.g;
  const std::uint32_t root = expected.source;
  const auto n = static_cast<std::int64_t>(g.n);
  bool differs = !graph_problem::same_values(depth, want, g.n);
  if (!differs && parent) {
    if (parent[root] != root) differs = true;
#pragma omp parallel for schedule(dynamic, 4096) reduction(|| : differs)
    for (std::int64_t vi = 0; vi < n; ++vi) {
      const auto v = static_cast<std::uint32_t>(vi);
      if (v == root || differs) continue;
      const std::uint32_t p = parent[v];
      if (depth[v] == unreached)
        differs = p != unreached;
      else  // one level up, with an edge p -> v (undirected: v's own list holds p)
        differs = p >= g.n || depth[p] == unreached || depth[p] + 1 != depth[v] || !(g.directed ? has_edge(g, p, v) : has_edge(g, v, p));
    }
  }
  if (!differs) return "";
  if (auto why = check_root(in, expected, depth, parent); !why.empty()) return why;
  // The contract holds: the parents are right (the contract judges them, whatever the order of a
  // neighbour list read from a cache file), and depths unlike the reference's mean the two
  // disagree: say so, never pass.
  for (std::int64_t v = 0; v < n; ++v)
    if (depth[v] != want[v]) return fmt::format("vertex {} has depth {}, the reference search's {}", v, depth[v], want[v]);
  return "";
}

}  // namespace

std::vector<std::uint32_t> reference_depths(const csr_graph& g, std::uint32_t root) {
  std::vector<std::uint32_t> depth(g.n, unreached), queue;
  queue.reserve(g.n);
  depth[root] = 0;
  queue.push_back(root);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t u = queue[head];
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i)
      if (const std::uint32_t v = g.neighbours[i]; depth[v] == unreached) {
        depth[v] = depth[u] + 1;
        queue.push_back(v);
      }
  }
  return depth;
}

reference_answer traits::reference(const input& in) {
  reference_answer out;
  const std::uint64_t n = in.g.n, k = in.roots.size();
  out.roots.resize(k);
  const bool keep = graph_problem::keeps_values(in.g, k);
  if (keep) out.values.resize(k * n);
  const auto roots = static_cast<std::int64_t>(k);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t r = 0; r < roots; ++r) {
    const auto depth = reference_depths(in.g, in.roots[r]);
    out.roots[r] = graph_problem::summarise(in.g, in.roots[r], depth.data());
    if (keep) std::copy(depth.begin(), depth.end(), out.values.begin() + static_cast<std::ptrdiff_t>(r * n));
  }
  return out;
}

outcome traits::check(const input& in, const reference_answer& reference, const output& got) {
  outcome o;
  const auto& expected = reference.roots;
  const std::uint64_t n = in.g.n, k = expected.size();
  o.result_json = graph_problem::result_json(expected, "max_depth", "depth_sum");
  if (got.depth.size() != k * n) {
    o.reason = fmt::format("the output holds {} depths, not {} ({} roots of {} vertices)", got.depth.size(), k * n, k, n);
    return o;
  }
  if (!got.parent.empty() && got.parent.size() != k * n) {
    o.reason = fmt::format("the output holds {} parents, not {} ({} roots of {} vertices)", got.parent.size(), k * n, k, n);
    return o;
  }
  for (std::uint64_t r = 0; r < k; ++r) {
    const auto* depth = got.depth.data() + r * n;
    const auto* parent = got.parent.empty() ? nullptr : got.parent.data() + r * n;
    const auto why = reference.values.empty() ? check_root(in, expected[r], depth, parent)
                                              : check_against(in, expected[r], reference.values.data() + r * n, depth, parent);
    if (!why.empty()) {
      o.reason = fmt::format("root {} (vertex {}): {}", r, expected[r].source, why);
      return o;
    }
  }
  o.verified = true;
  return o;
}

}  // namespace ema::bfs
