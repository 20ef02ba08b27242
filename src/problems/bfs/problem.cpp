// Problem `bfs` (Nogueira, 004_96c7929830a11cf7.txt, section 4, Algorithms 7 and 8): the registration, on
// the graphs, roots and parameters every graph problem shares (problems/graph/graph_problem.hpp); the
// verifier is in verify.cpp.
#include <array>
#include <iterator>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/graph/graph_problem.hpp"
#include "problems/bfs/bfs.hpp"

namespace ema::bfs {
namespace {

// The graph problems' parameters, and `cuda`'s frontier size for levels run on the device.
constexpr std::size_t shared = std::size(graph_problem::params);
constexpr auto params = [] {
  std::array<param_spec, shared + 1> a{};
  for (std::size_t i = 0; i < shared; ++i) a[i] = graph_problem::params[i];
  a[shared] = graph_problem::local_edges_param;
  return a;
}();

// Around the warp (32) and a few blocks; every kind of graph, directed and not, one root and many.
// Generated kron graphs need a power of two: their own sizes in the tests (tests/problems/bfs/).
constexpr std::uint64_t test_sizes[] = {1, 2, 3, 31, 32, 33, 1024, 4096};
constexpr const char* test_params[] = {
    "graph=urand,degree=4",
    "graph=urand,degree=1,roots=3",
    "graph=grid",
    "graph=urand,degree=4,directed=true",
    "graph=grid,directed=true,roots=2",
    "graph=urand,degree=8,source=0",
};

work_model work(std::uint64_t n, const param_set& p) { return graph_problem::estimated_work(n, p, 4); }

// The graph and one search's depths and parents.
double working_set(std::uint64_t n, const param_set& p) { return graph_problem::working_set(n, p, false, 8); }

void validate(const param_set& p, std::span<const std::uint64_t> sizes) {
  graph_problem::validate(p, sizes, "bfs");
  graph_problem::local_edges_of(p, "bfs");
}

}  // namespace

input traits::generate(const point_request& r) {
  input in;
  static_cast<graph_problem::graph_input&>(in) = graph_problem::make_input(r, "bfs", false);
  return in;
}

}  // namespace ema::bfs

EMA_PROBLEM(bfs, ema::bfs::kit::problem({
                     .title = "breadth-first search from K roots: the depth of every vertex reached (Graph500 / GAP conventions)",
                     .size_meaning = "vertices of the graph",
                     .source = "004_96c7929830a11cf7.txt (section 4: Algorithm 7, BFS in CUDA; Algorithm 8, BFS in OpenMP)",
                     .params = ema::bfs::params,
                     .default_sizes = "2^10..2^20",  // 11 sizes an octave apart, kron degree 16: 17 M edges at the top
                     .work = &ema::bfs::work,
                     .working_set = &ema::bfs::working_set,
                     .rate = {.name = "MTEPS",
                              .of_bytes = false,
                              .scale = 1e6,
                              .meaning = "input edges of the parts the searches reached, summed over the roots (Graph500's traversed edges)",
                              .work_field = "edges"},
                     .op_unit = "edges",
                     .max_size = (std::uint64_t{1} << 32) - 1,  // 32-bit vertex ids
                     .validate = &ema::bfs::validate,
                     .size_near = &ema::graph_problem::size_near,
                     .size_from_input = &ema::graph_problem::size_from_input,
                     .test_sizes = ema::bfs::test_sizes,
                     .test_params = ema::bfs::test_params,
                     .cached_inputs = true,
                 }));
