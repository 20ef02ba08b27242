// Graphs for the bfs and sssp problems (Nogueira, 004_96c7929830a11cf7.txt, Algorithms 1, 2, 7 and 8), in
// the conventions of the GAP benchmark suite (Beamer, Asanović and Patterson) and Graph500:
// - compressed sparse rows: offsets (n + 1), neighbours (32-bit vertex ids), and for sssp a weight
//   per edge; undirected graphs stored with both directions; self-loops and duplicate edges removed
//   (a duplicate keeps its least weight); each vertex's neighbours in increasing order;
// - generated from a seed, every edge a pure function of (seed, edge index), so any thread count
//   builds the same graph:
//   kron   Graph500's Kronecker generator: n = 2^scale vertices, degree · n edges, each edge's
//          endpoints chosen bit by bit with A = 0.57, B = 0.19, C = 0.19 (D = 0.05), then the
//          vertex ids permuted by a seeded shuffle (so vertex 0 is not the hub);
//   urand  degree · n edges with both endpoints uniform (GAP's uniform random graph);
//   grid   a 4-neighbour 2D grid of about sqrt(n) by sqrt(n) vertices (high diameter: a stand-in
//          for road networks); `degree` does not apply;
//   weights (sssp) integers uniform in [1, 255], GAP's convention.
// "degree" is GAP's: edges generated per vertex, so an undirected graph holds about 2 · degree
// directed edges per vertex before duplicates are removed.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ema {

enum class graph_kind { kron, urand, grid };

/// The kind a parameter value names; usage_error listing the choices otherwise.
graph_kind graph_kind_from(std::string_view name);

struct graph_edge {
  std::uint32_t u = 0, v = 0, w = 1;
};

struct csr_graph {
  std::uint64_t n = 0;  ///< vertices
  bool directed = false;
  std::vector<std::uint64_t> offsets;  ///< n + 1: vertex v's neighbours are [offsets[v], offsets[v + 1])
  std::vector<std::uint32_t> neighbours;
  std::vector<std::uint32_t> weights;  ///< one per neighbour entry, or empty (unweighted)
  /// Edges of the input after cleaning, counted once each: an undirected edge once, not twice
  /// (Graph500's count for TEPS).
  std::uint64_t input_edges() const { return directed ? neighbours.size() : neighbours.size() / 2; }
  std::uint64_t degree(std::uint64_t v) const { return offsets[v + 1] - offsets[v]; }
};

/// The edges of a generated graph on n vertices (kron: n a power of two), weighted in [1, 255]
/// when `weighted`; `degree` edges per vertex (kron, urand).
std::vector<graph_edge> generate_edges(graph_kind kind, std::uint64_t n, int degree, std::uint64_t seed, bool weighted);

/// The graph on n vertices of `edges` (ids below n): both directions of each edge unless
/// `directed`, self-loops dropped, duplicates merged (least weight kept), neighbours sorted.
/// `weighted` false leaves the weights empty.
csr_graph build_csr(std::uint64_t n, std::vector<graph_edge> edges, bool directed, bool weighted);

}  // namespace ema
