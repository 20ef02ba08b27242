// Problem `bfs` (004_96c7929830a11cf7.txt, section 4, Algorithms 7 and 8): the parameters, the
// graph and its roots, the work model and the registration; the verifier is in verify.cpp.
//
// The graph: generated (`graph=kron|urand|grid`, n vertices, `degree` edges generated per vertex,
// seeded; inputs/graph.hpp) or read from a file (`input=PATH`, Matrix Market, SNAP edge list or
// DIMACS .gr; inputs/graph_file.hpp), undirected unless `directed=true`. The roots, as Graph500
// draws them: `roots` distinct vertices with at least one edge, drawn from the seed (all such
// vertices when there are fewer; vertex 0 when none has an edge); `source=V` fixes one root.
#include <algorithm>
#include <fmt/format.h>
#include <unordered_set>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/graph_cache.hpp"
#include "inputs/graph_file.hpp"
#include "inputs/random.hpp"
#include "problems/bfs/bfs.hpp"

namespace ema::bfs {
namespace {

constexpr std::uint64_t root_stream = 0x726f6f7473;  // "roots"
constexpr std::int64_t max_roots = 1024;
constexpr double cache_from_edges = 1 << 22;  ///< generated graphs this large are kept in the input cache

constexpr param_spec params[] = {
    {"graph", param_kind::choice, "kron", "generated graph: Graph500 Kronecker (n a power of two), uniform random, or a 2D grid",
     "kron|urand|grid"},
    {"degree", param_kind::integer, "16", "edges generated per vertex (kron, urand)"},
    {"directed", param_kind::boolean, "false", "keep the edges' direction (else each edge is followed both ways)"},
    {"roots", param_kind::integer, "16", "searches per point, from distinct vertices with an edge drawn from the seed"},
    {"source", param_kind::integer, "-1", "search from this vertex alone (0-based), instead of drawn roots"},
    {"input", param_kind::path, "", "read the graph from this file (n from the file): Matrix Market, SNAP edge list or DIMACS .gr"},
    {"format", param_kind::choice, "auto", "the file's format (auto: by its extension: .mtx, .el/.txt/.wel, .gr)", "auto|mtx|el|gr"},
};

// Around the warp (32) and a few blocks; every kind of graph, directed and not, one root and many.
constexpr std::uint64_t test_sizes[] = {1, 2, 3, 31, 32, 33, 1024, 4096};
constexpr const char* test_params[] = {
    "graph=urand,degree=4",       "graph=urand,degree=1,roots=3", "graph=grid",
    "graph=urand,degree=4,directed=true", "graph=grid,directed=true,roots=2", "graph=urand,degree=8,source=0",
};
// Generated kron graphs need a power of two: their own sizes in the tests (tests/problems/bfs/).

graph_format format_of(const settings& s) { return graph_format_for(s.input, s.format); }

graph_file read_file(const settings& s) { return read_graph_file(s.input, format_of(s)); }

work_model work(std::uint64_t n, const param_set& p) {
  // An estimate from n alone (the rate uses the edges each point's searches really reached, from
  // the result): the roots times the generated edges, each read both ways, 4-byte ids.
  const double edges = static_cast<double>(n) * static_cast<double>(p.integer("degree"));
  const double roots = p.integer("source") >= 0 ? 1.0 : static_cast<double>(p.integer("roots"));
  return {roots * 2 * edges * 4, roots * edges};
}

void validate(const param_set& p, std::span<const std::uint64_t> sizes) {
  const auto s = settings::of(p);
  std::uint64_t from_file = 0;
  if (!s.input.empty()) {
    format_of(s);  // a format it cannot tell is an error before anything runs
    from_file = read_file(s).n;
  }
  for (auto n : sizes) {
    if (n == 0) throw usage_error("bfs: n must be at least 1 (the number of vertices)");
    if (from_file && n != from_file)
      throw usage_error(fmt::format("{}: the graph has {} vertices, but the point asks n = {} (run with --sizes {})", s.input, from_file, n,
                                    from_file));
    if (!from_file && s.kind == graph_kind::kron && (n & (n - 1)))
      throw usage_error(fmt::format("bfs: graph=kron needs n a power of two (n = 2^scale vertices), not {}", n));
    if (s.source >= 0 && static_cast<std::uint64_t>(s.source) >= n)
      throw usage_error(fmt::format("bfs: source={} is past the graph's {} vertices (sources are 0-based)", s.source, n));
  }
}

std::uint64_t size_from_input(const param_set& p) {
  const auto s = settings::of(p);
  return s.input.empty() ? 0 : read_file(s).n;
}

std::vector<std::uint32_t> draw_roots(const csr_graph& g, const settings& s, std::uint64_t seed) {
  if (s.source >= 0) return {static_cast<std::uint32_t>(s.source)};
  std::vector<std::uint32_t> with_edge;
  std::uint64_t count = 0;
  for (std::uint64_t v = 0; v < g.n; ++v) count += g.degree(v) > 0;
  if (count == 0) return {0};
  const auto want = static_cast<std::uint64_t>(s.roots);
  std::vector<std::uint32_t> roots;
  if (count <= want) {  // all of them, in order
    for (std::uint64_t v = 0; v < g.n; ++v)
      if (g.degree(v) > 0) roots.push_back(static_cast<std::uint32_t>(v));
    return roots;
  }
  std::unordered_set<std::uint32_t> taken;
  for (std::uint64_t i = 0; roots.size() < want; ++i) {
    const auto v = static_cast<std::uint32_t>(random_below(seed ^ root_stream, i, g.n));
    if (g.degree(v) > 0 && taken.insert(v).second) roots.push_back(v);
  }
  return roots;
}

}  // namespace

settings settings::of(const param_set& p) {
  settings s;
  s.kind = graph_kind_from(p.text("graph"));
  s.input = p.text("input");
  s.format = p.text("format") == "auto" ? "" : p.text("format");
  s.degree = static_cast<int>(integer_in(p, "bfs", "degree", 1, 1 << 20));
  s.directed = p.boolean("directed");
  s.roots = static_cast<int>(integer_in(p, "bfs", "roots", 1, max_roots));
  s.source = integer_in(p, "bfs", "source", -1, (std::int64_t{1} << 32) - 2);
  return s;
}

input traits::generate(const point_request& r) {
  input in;
  in.s = settings::of(*r.params);
  if (r.n == 0) throw usage_error("bfs: n must be at least 1 (the number of vertices)");
  if (!in.s.input.empty()) {
    auto f = read_file(in.s);
    if (f.n != r.n)
      throw usage_error(fmt::format("{}: the graph has {} vertices, but the point asks n = {} (run with --sizes {})", in.s.input, f.n, r.n, f.n));
    in.g = build_csr(f.n, std::move(f.edges), in.s.directed, false);
    in.origin = in.s.input;
  } else {
    auto build = [&] { return build_csr(r.n, generate_edges(in.s.kind, r.n, in.s.degree, r.seed, false), in.s.directed, false); };
    // Graphs of 2^22 generated edges and more take seconds to build: kept in ema run's input
    // cache (inputs/graph_cache.hpp), keyed by everything that shapes them.
    const double generated = static_cast<double>(r.n) * (in.s.kind == graph_kind::grid ? 2 : in.s.degree);
    if (generated >= cache_from_edges) {
      const auto key = hash_text(fmt::format("graph v1|{}|{}|{}|unweighted|{}|{}", r.params->text("graph"), in.s.degree, in.s.directed, r.n, r.seed));
      in.g = cached_graph(r, "bfs", key, build);
    } else {
      in.g = build();
    }
    in.origin = r.params->text("graph");
  }
  if (in.s.source >= 0 && static_cast<std::uint64_t>(in.s.source) >= in.g.n)
    throw usage_error(fmt::format("bfs: source={} is past the graph's {} vertices (sources are 0-based)", in.s.source, in.g.n));
  in.roots = draw_roots(in.g, in.s, r.seed);
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
    .rate = {.name = "MTEPS", .of_bytes = false, .scale = 1e6,
             .meaning = "input edges of the parts the searches reached, summed over the roots (Graph500's traversed edges)",
             .work_field = "edges"},
    .max_size = (std::uint64_t{1} << 32) - 1,  // 32-bit vertex ids
    .validate = &ema::bfs::validate,
    .size_from_input = &ema::bfs::size_from_input,
    .test_sizes = ema::bfs::test_sizes,
    .test_params = ema::bfs::test_params,
    .cached_inputs = true,
}));
