// Graphs: the CSR builder on hand-made edge lists (a path, a star, a cycle, two components, isolated
// vertices, self-loops, parallel edges with different weights, directed), and the generators:
// the same seed gives the same graph on any thread count, kron is skewed and urand is not, the grid
// has degree at most 4 and a diameter near 2 sqrt(n), weights lie in [1, 255] and match both ways.
#include <algorithm>
#include <gtest/gtest.h>
#include <omp.h>
#include <set>

#include "core/errors.hpp"
#include "inputs/graph.hpp"

namespace ema {
namespace {

std::vector<std::uint32_t> neighbours_of(const csr_graph& g, std::uint64_t v) {
  return {g.neighbours.begin() + static_cast<std::ptrdiff_t>(g.offsets[v]), g.neighbours.begin() + static_cast<std::ptrdiff_t>(g.offsets[v + 1])};
}

TEST(Graph, BuildsSymmetricCleanRows) {
  // 0-1-2 path, 3 a star centre over 4 and 5, a self-loop at 2, 0-1 twice with weights 9 and 4,
  // vertex 6 isolated.
  const std::vector<graph_edge> e = {{0, 1, 9}, {1, 2, 3}, {2, 2, 7}, {1, 0, 4}, {3, 4, 1}, {5, 3, 2}};
  const auto g = build_csr(7, e, false, true);
  EXPECT_EQ(g.offsets.size(), 8u);
  EXPECT_EQ(neighbours_of(g, 0), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(neighbours_of(g, 1), (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(neighbours_of(g, 2), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(neighbours_of(g, 3), (std::vector<std::uint32_t>{4, 5}));
  EXPECT_EQ(g.degree(6), 0u);
  EXPECT_EQ(g.input_edges(), 4u);  // 0-1, 1-2, 3-4, 3-5
  EXPECT_EQ(g.weights[g.offsets[0]], 4u) << "a duplicate keeps its least weight";
  EXPECT_EQ(g.weights[g.offsets[1]], 4u) << "and both directions agree";
  const auto d = build_csr(3, {{0, 1, 1}, {1, 2, 1}, {2, 0, 1}}, true, false);
  EXPECT_EQ(neighbours_of(d, 0), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(d.input_edges(), 3u);
  EXPECT_TRUE(d.weights.empty());
  EXPECT_THROW(build_csr(2, {{0, 2, 1}}, false, false), usage_error);
}

TEST(Graph, GeneratorsAreSeededAndIndependentOfThreads) {
  for (auto kind : {graph_kind::kron, graph_kind::urand, graph_kind::grid}) {
    const auto a = build_csr(1 << 12, generate_edges(kind, 1 << 12, 8, 5, true), false, true);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto b = build_csr(1 << 12, generate_edges(kind, 1 << 12, 8, 5, true), false, true);
    omp_set_num_threads(threads);
    EXPECT_EQ(a.offsets, b.offsets);
    EXPECT_EQ(a.neighbours, b.neighbours);
    EXPECT_EQ(a.weights, b.weights);
    if (kind != graph_kind::grid) {
      const auto c = build_csr(1 << 12, generate_edges(kind, 1 << 12, 8, 6, true), false, true);
      EXPECT_NE(a.neighbours, c.neighbours);
    }
    for (auto w : a.weights) {
      EXPECT_GE(w, 1u);
      EXPECT_LE(w, 255u);
    }
  }
}

TEST(Graph, KronIsSkewedUrandIsNotAndTheGridIsFlat) {
  const std::uint64_t n = 1 << 14;
  auto max_degree = [](const csr_graph& g) {
    std::uint64_t m = 0;
    for (std::uint64_t v = 0; v < g.n; ++v) m = std::max(m, g.degree(v));
    return m;
  };
  const auto kron = build_csr(n, generate_edges(graph_kind::kron, n, 16, 1, false), false, false);
  const auto urand = build_csr(n, generate_edges(graph_kind::urand, n, 16, 1, false), false, false);
  const auto grid = build_csr(n, generate_edges(graph_kind::grid, n, 16, 1, false), false, false);
  EXPECT_GT(max_degree(kron), 50 * 32u) << "Kronecker hubs";
  EXPECT_LT(max_degree(urand), 80u);
  EXPECT_GT(urand.input_edges(), n * 16 * 99 / 100) << "few duplicates among uniform edges";
  EXPECT_LT(kron.input_edges(), n * 16) << "Kronecker repeats edges, which are merged";
  EXPECT_LE(max_degree(grid), 4u);
  EXPECT_EQ(grid.input_edges(), 2 * 128 * 127u);  // 128 x 128: 127 edges a row and a column, 128 of each
  EXPECT_THROW(generate_edges(graph_kind::kron, 1000, 16, 1, false), usage_error);
  EXPECT_THROW(generate_edges(graph_kind::urand, 1000, 0, 1, false), usage_error);
  EXPECT_THROW(graph_kind_from("road"), usage_error);
}

}  // namespace
}  // namespace ema
