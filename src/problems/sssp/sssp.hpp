// Problem `sssp`: single-source shortest paths from K roots of a weighted graph, the distance of
// every vertex reached (Nogueira, 004_96c7929830a11cf7.txt, section 1: Algorithm 1, SSSP in CUDA, and
// Algorithm 2, SSSP in OpenMP: edge-parallel relaxation rounds until nothing changes), in the
// GAP benchmark suite's conventions: the graphs and roots of bfs (problems/graph/graph_problem.hpp), integer
// weights uniform in [1, 255] on generated graphs (a file's own otherwise), the rate in edges per
// second as for bfs.
//
// A variant returns, root after root, the distance of every vertex (`unreached` for the others):
// 32-bit, as GAP's; a graph whose longest possible path (n - 1 edges of its largest weight) could
// pass 2^32 - 2 is refused when it is built.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/problem.hpp"
#include "problems/graph/graph_problem.hpp"

namespace ema::sssp {

constexpr std::uint32_t unreached = std::numeric_limits<std::uint32_t>::max();

/// The graph (weighted) and its roots, and for the source's edge-parallel algorithms the edge
/// list they iterate over: each CSR entry's origin (`edge_origin[i]` is the row of neighbours[i]),
/// built only for them (with_edge_origin), 4 bytes an entry.
struct input : graph_problem::graph_input {
  std::vector<std::uint32_t> edge_origin;
  std::uint64_t n() const { return g.n; }
};

/// Builds `in.edge_origin` when it is not built yet: the Ready step (problem_kit::ready_fn) of the
/// variants that read it, so it is never part of their time and the others never hold it.
void with_edge_origin(input& in);

struct output {
  std::vector<std::uint32_t> dist;  ///< root r's distance to v at r * n + v
};

/// What a correct search from one root gives, by the reference (Dijkstra, verify.cpp).
using root_summary = graph_problem::root_summary;

struct traits {
  static constexpr const char* name = "sssp";
  using input = sssp::input;
  using output = sssp::output;
  static input generate(const point_request& request);
  static graph_problem::reference_answer reference(const input& in);
  static outcome check(const input& in, const graph_problem::reference_answer& expected, const output& got);
};

using kit = problem_kit<traits>;

/// The largest `delta` a run takes.
constexpr std::int64_t max_delta = std::int64_t{1} << 30;

/// The parameters, parsed once (problem.cpp): the graph's (graph_problem::settings) and the
/// delta-stepping variants' bucket width (0: each variant chooses).
struct settings {
  graph_problem::settings graph;
  std::int64_t delta = 0;
  /// Throws usage_error naming the parameter that is wrong.
  static settings of(const param_set& p);
};

/// The delta-stepping variants' tuning parameter: `delta`, or `chosen` when it is 0.
std::uint32_t delta_of(const param_set& p, std::uint32_t chosen);
/// The variants that read it (variant_desc::tuning); `cuda` reads `local_edges` as well (problems/graph/graph_problem.hpp).
inline constexpr const char* delta_tuning[] = {"delta"};
inline constexpr const char* cuda_tuning[] = {"delta", "local_edges"};

/// Dijkstra with a binary heap (lazy deletion) from `root` into dist (n entries, all `unreached`
/// on entry): the reference's summaries (verify.cpp) and the variant `seq`. The verifier's edge
/// conditions check every variant, `seq` included, without it.
void dijkstra(const csr_graph& g, std::uint32_t root, std::uint32_t* dist);

/// The flow of a CPU variant, as bfs's: the output allocated with every distance `unreached`
/// (untimed), then `search(root, dist)` for each root (graph_problem::each_root).
template <class Search>
output search_each_root(const input& in, run_context& ctx, Search&& search) {
  output o;
  const std::uint64_t n = in.n();
  o.dist.assign(in.roots.size() * n, unreached);
  graph_problem::each_root(in.roots.size(), ctx, [&](std::size_t r) { search(in.roots[r], o.dist.data() + r * n); });
  return o;
}

}  // namespace ema::sssp
