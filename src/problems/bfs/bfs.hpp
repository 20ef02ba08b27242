// Problem `bfs`: breadth-first search from K roots of a graph, the depth of every vertex reached
// (Nogueira, 004_96c7929830a11cf7.txt, section 4: Algorithm 7, BFS in CUDA with a queue and a host loop per
// level, and Algorithm 8, BFS in OpenMP, each level scanning every vertex), measured in the
// conventions of the GAP benchmark suite and Graph500: generated Kronecker, uniform and grid graphs
// or graphs read from files (inputs/graph.hpp, inputs/graph_file.hpp), K roots drawn among the
// vertices with an edge, one point searching from all of them, the rate in traversed edges per second.
//
// A variant returns, for each root in order, the depth of every vertex (`unreached` for the
// others) and, where its algorithm builds one, the BFS tree as a parent per vertex (the root its
// own parent). The verifier (verify.cpp) checks both against the graph and a reference search.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "problems/graph/graph_problem.hpp"

namespace ema::bfs {

constexpr std::uint32_t unreached = std::numeric_limits<std::uint32_t>::max();

/// The graph and its roots (problems/graph/graph_problem.hpp).
struct input : graph_problem::graph_input {
  std::uint64_t n() const { return g.n; }
};

/// Depths and parents of every root's search, root after root: root r's entry for vertex v is at
/// r * n + v. `parent` is empty for a variant whose algorithm keeps depths only (the source's).
struct output {
  std::vector<std::uint32_t> depth;
  std::vector<std::uint32_t> parent;
};

/// What a correct search from one root gives, by the reference (a queue, verify.cpp).
using root_summary = graph_problem::root_summary;

/// The reference searches' summaries and, where kept, depths (graph_problem::reference_answer).
using reference_answer = graph_problem::reference_answer;

struct traits {
  static constexpr const char* name = "bfs";
  using input = bfs::input;
  using output = bfs::output;
  static input generate(const point_request& request);
  static reference_answer reference(const input& in);
  static outcome check(const input& in, const reference_answer& expected, const output& got);
};

using kit = problem_kit<traits>;

/// The GPU variants keep vertex ids and queue counts in 32 bits beside `unreached`: at most 2^32 - 2
/// vertices; the one larger size the problem allows is skipped for them (variant_desc::not_applicable).
inline const char* too_many_vertices(const param_set&, std::uint64_t n) {
  return n > 0xfffffffeull ? "the GPU variants take at most 2^32 - 2 vertices (32-bit ids beside the unreached mark)" : nullptr;
}

/// The flow of a CPU variant: the output allocated (untimed), then `search(root, depth, parent)`
/// for each root in order inside the `kernel` phase, each root's time recorded in the note
/// `root_ms` (milliseconds, comma-separated, in the roots' order). `parent` is nullptr when
/// `with_parents` is false. Every depth starts as `unreached` and every parent too.
template <class Search>
output search_each_root(const input& in, run_context& ctx, bool with_parents, Search&& search) {
  output o;
  const std::uint64_t n = in.n();
  o.depth.assign(in.roots.size() * n, unreached);
  if (with_parents) o.parent.assign(in.roots.size() * n, unreached);
  graph_problem::each_root(in.roots.size(), ctx,
                           [&](std::size_t r) { search(in.roots[r], o.depth.data() + r * n, with_parents ? o.parent.data() + r * n : nullptr); });
  return o;
}

/// `cuda`'s tuning parameter (problems/graph/graph_problem.hpp).
inline constexpr const char* local_edges_tuning[] = {"local_edges"};

/// The reference search from one root (verify.cpp): depths by a FIFO queue.
std::vector<std::uint32_t> reference_depths(const csr_graph& g, std::uint32_t root);

}  // namespace ema::bfs
