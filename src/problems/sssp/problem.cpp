// Problem `sssp` (Nogueira, 004_96c7929830a11cf7.txt, section 1, Algorithms 1 and 2): the registration, on
// the graphs, roots and parameters every graph problem shares (problems/graph/graph_problem.hpp), weighted;
// the verifier is in verify.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/sssp/sssp.hpp"

namespace ema::sssp {
namespace {

// The graph problems' parameters, the bucket width of the delta-stepping variants, and `cuda`'s small
// steps on the device (local_edges).
constexpr std::size_t shared = std::size(graph_problem::params);
constexpr auto params = [] {
  std::array<param_spec, shared + 2> a{};
  for (std::size_t i = 0; i < shared; ++i) a[i] = graph_problem::params[i];
  a[shared] = {"delta", param_kind::integer,
               "0",     "bucket width of the delta-stepping variants, in weight units (0: each chooses; omp 4, cuda 64)",
               nullptr, true};
  // Off by default, unlike bfs's: on a 2^22 grid 16384 makes `cuda` 3.6x faster, on kron-22 14%
  // slower (docs/perf-notes.md), and the kron figures are the ones GAP's conventions compare.
  a[shared + 1] = graph_problem::local_edges_param;
  a[shared + 1].default_value = "0";
  a[shared + 1].help =
      "cuda: while the near queue has at most this many edges out of it (no vertex of more than 64) and the far pile at most "
      "16 times that, the steps run on the device without the host (0, the default: every step from the host; 16384 for "
      "high-diameter graphs)";
  return a;
}();

// As bfs's: around the warp and a few blocks; every kind of graph, directed and not.
constexpr std::uint64_t test_sizes[] = {1, 2, 3, 31, 32, 33, 1024, 4096};
constexpr const char* test_params[] = {
    "graph=urand,degree=4",
    "graph=urand,degree=1,roots=3",
    "graph=grid",
    "graph=urand,degree=4,directed=true",
    "graph=grid,directed=true,roots=2",
    "graph=urand,degree=8,source=0",
    "graph=urand,delta=1",
};

// Weights and ids 4 bytes each.
work_model work(std::uint64_t n, const param_set& p) { return graph_problem::estimated_work(n, p, 8); }

// The weighted graph and one search's distances.
double working_set(std::uint64_t n, const param_set& p) { return graph_problem::working_set(n, p, true, 4); }

/// Dijkstra's heap operations (`seq`): it settles the reached vertices in the order of their distance,
/// each pop of std::priority_queue sifting a hole through all ~log₂(size) levels of the heap, and on
/// the graphs ema generates (kron, urand, grid) the heap holds a power of n at its peak: n log₂ n
/// comparisons beyond the edges' work. A graph that keeps the heap small (a path) would cost less,
/// but a graph from a file is one size, never a sweep in n, so every series fitted is of a
/// generated graph.
constexpr algorithm_work algorithm_floors[] = {
    {"dijkstra", &n_log2_n, "heap comparisons (n log2 n: Dijkstra pops the vertices in distance order from a binary heap)"},
};

void validate(const param_set& p, std::span<const std::uint64_t> sizes) {
  graph_problem::validate(p, sizes, "sssp");
  settings::of(p);
  graph_problem::local_edges_of(p, "sssp");
}

}  // namespace

settings settings::of(const param_set& p) { return {graph_problem::settings::of(p, "sssp"), integer_in(p, "sssp", "delta", 0, max_delta)}; }

std::uint32_t delta_of(const param_set& p, std::uint32_t chosen) {
  const auto d = settings::of(p).delta;
  return d > 0 ? static_cast<std::uint32_t>(d) : chosen;
}

input traits::generate(const point_request& r) {
  input in;
  static_cast<graph_problem::graph_input&>(in) = graph_problem::make_input(r, "sssp", true);
  const csr_graph& g = in.g;
  // Distances are 32-bit: the longest path a search could find must fit below `unreached`.
  const std::uint64_t heaviest = g.weights.empty() ? 1 : *std::max_element(g.weights.begin(), g.weights.end());
  if (g.n > 1 && heaviest > (std::uint64_t{unreached} - 1) / (g.n - 1))
    throw usage_error(
        fmt::format("sssp: {} vertices and a weight of {}: a shortest path could pass 2^32 - 2, past ema's 32-bit distances", g.n, heaviest));
  return in;
}

void with_edge_origin(input& in) {
  const csr_graph& g = in.g;
  if (in.edge_origin.size() == g.neighbours.size()) return;
  in.edge_origin.resize(g.neighbours.size());
  const auto n = static_cast<std::int64_t>(g.n);
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t u = 0; u < n; ++u)
    std::fill(in.edge_origin.begin() + static_cast<std::ptrdiff_t>(g.offsets[u]),
              in.edge_origin.begin() + static_cast<std::ptrdiff_t>(g.offsets[u + 1]), static_cast<std::uint32_t>(u));
}

}  // namespace ema::sssp

EMA_PROBLEM(sssp,
            ema::sssp::kit::problem({
                .title = "single-source shortest paths from K roots: the distance of every vertex reached (weights in [1, 255]; GAP conventions)",
                .size_meaning = "vertices of the graph",
                .source = "004_96c7929830a11cf7.txt (section 1: Algorithm 1, SSSP in CUDA; Algorithm 2, SSSP in OpenMP)",
                .params = ema::sssp::params,
                .default_sizes = "2^10..2^18",  // 9 sizes an octave apart: the source's Bellman-Ford rounds grow with the paths
                .work = &ema::sssp::work,
                .working_set = &ema::sssp::working_set,
                .rate = {.name = "Medges/s",
                         .of_bytes = false,
                         .scale = 1e6,
                         .meaning = "input edges of the parts the searches reached, summed over the roots (as bfs's TEPS)",
                         .work_field = "edges"},
                .op_unit = "edges",
                .max_size = (std::uint64_t{1} << 32) - 1,  // 32-bit vertex ids
                .validate = &ema::sssp::validate,
                .size_near = &ema::graph_problem::size_near,
                .size_from_input = &ema::graph_problem::size_from_input,
                .test_sizes = ema::sssp::test_sizes,
                .test_params = ema::sssp::test_params,
                .algorithm_floors = ema::sssp::algorithm_floors,
                .cached_inputs = true,
            }));
