#include "problems/graph/graph_problem.hpp"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <unordered_set>

#include "core/errors.hpp"
#include "core/format.hpp"
#include "inputs/graph_cache.hpp"
#include "inputs/graph_file.hpp"
#include "inputs/random.hpp"
#include "measure/memory.hpp"

namespace ema::graph_problem {
namespace {

constexpr std::uint64_t root_stream = 0x726f6f7473;        // "roots"
constexpr double cache_from_edges = 1 << 22;               ///< generated graphs this large are kept in the input cache
constexpr std::uintmax_t cache_from_file_bytes = 1 << 24;  ///< graph files this large too (parsing them takes seconds)

graph_file read_file(const settings& s) {
  auto f = read_graph_file(s.input, graph_format_for(s.input, s.format));
  // n = 0 would read as "no file" to size_from_input (its 0 means the parameters name none).
  if (f.n == 0) throw usage_error(fmt::format("{}: the file holds no graph (no edges and no declared vertices)", s.input));
  return f;
}

/// The identity of a graph file: a hash of its content, so that another file at the same path,
/// or a copy of another graph given this one's time (`cp -p`), is never taken for it.
std::string file_identity(const std::string& path, std::uintmax_t& bytes) {
  std::error_code ec;
  bytes = std::filesystem::file_size(path, ec);
  try {
    return fmt::format("{:016x}|{}", file_content_hash(path), bytes);
  } catch (const std::runtime_error& e) {
    throw usage_error(fmt::format("{}: {}", path, e.what()));
  }
}

/// A file's vertex count, parsed once per process for the file as it is now (its path, size and
/// modification time, enough within one process): the plan's validate and size_from_input both ask.
std::uint64_t file_vertices(const settings& s) {
  static std::map<std::string, std::uint64_t> known;
  std::error_code ec;
  const auto id = fmt::format("{}|{}|{}|{}", s.input, std::filesystem::file_size(s.input, ec),
                              std::filesystem::last_write_time(s.input, ec).time_since_epoch().count(), s.format);
  if (auto it = known.find(id); it != known.end()) return it->second;
  const auto n = read_file(s).n;
  known[id] = n;
  return n;
}

std::vector<std::uint32_t> draw_roots(const csr_graph& g, const settings& s, std::uint64_t seed) {
  if (s.source >= 0) return {static_cast<std::uint32_t>(s.source)};
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

settings settings::of(const param_set& p, const char* problem) {
  settings s;
  s.kind = graph_kind_from(p.text("graph"));
  s.input = p.text("input");
  s.format = p.text("format") == "auto" ? "" : p.text("format");
  s.degree = static_cast<int>(integer_in(p, problem, "degree", 1, 1 << 20));
  s.directed = p.boolean("directed");
  s.roots = static_cast<int>(integer_in(p, problem, "roots", 1, max_roots));
  s.source = integer_in(p, problem, "source", -1, (std::int64_t{1} << 32) - 2);
  return s;
}

void validate(const param_set& p, std::span<const std::uint64_t> sizes, const char* problem) {
  const auto s = settings::of(p, problem);
  std::uint64_t from_file = 0;
  if (!s.input.empty()) {
    graph_format_for(s.input, s.format);  // a format it cannot tell is an error before anything runs
    from_file = file_vertices(s);
  }
  for (auto n : sizes) {
    if (n == 0) throw usage_error(fmt::format("{}: n must be at least 1 (the number of vertices)", problem));
    if (from_file && n != from_file)
      throw usage_error(
          fmt::format("{}: the graph has {} vertices, but the point asks n = {} (run with --sizes {})", s.input, from_file, n, from_file));
    {
      // Building holds the generated edges (12 bytes each) and the rows they become (at least 8
      // more), and every vertex its offset and its degree count (16 bytes): a graph far past the
      // memory this process may still use (the machine's available memory, ulimit, control group),
      // generated or declared by a file's header, is refused here, not left to the OOM killer.
      const double edges = from_file ? 0 : static_cast<double>(n) * (s.kind == graph_kind::grid ? 2 : s.degree);
      const double need = 20 * edges + 16 * (static_cast<double>(n) + 1), have = static_cast<double>(memory_this_process_may_add());
      if (have > 0 && need > have)
        throw usage_error(
            fmt::format("{}: n = {} would need about {} to build its graph, more than the {} this process may still use "
                        "(the machine's available memory, ulimit, control group)",
                        from_file ? s.input : problem, n, format_bytes(need), format_bytes(have)));
    }
    if (!from_file && s.kind == graph_kind::kron && (n & (n - 1)))
      throw usage_error(fmt::format("{}: graph=kron needs n a power of two (n = 2^scale vertices), not {}", problem, n));
    if (s.source >= 0 && static_cast<std::uint64_t>(s.source) >= n)
      throw usage_error(fmt::format("{}: source={} is past the graph's {} vertices (sources are 0-based)", problem, s.source, n));
  }
}

std::uint64_t size_from_input(const param_set& p) {
  const std::string& path = p.text("input");
  if (path.empty()) return 0;
  settings s;
  s.input = path;
  s.format = p.text("format") == "auto" ? "" : p.text("format");
  return file_vertices(s);
}

std::uint64_t size_near(const param_set& p, std::uint64_t n) {
  if (n <= 1 || graph_kind_from(p.text("graph")) != graph_kind::kron || !p.text("input").empty()) return n;
  const int scale = static_cast<int>(std::lround(std::log2(static_cast<double>(n))));
  return std::uint64_t{1} << std::min(scale, 62);
}

graph_input make_input(const point_request& r, const char* problem, bool weighted) {
  graph_input in;
  in.s = settings::of(*r.params, problem);
  if (r.n == 0) throw usage_error(fmt::format("{}: n must be at least 1 (the number of vertices)", problem));
  if (!in.s.input.empty()) {
    auto build = [&] {
      auto f = read_file(in.s);
      if (f.n != r.n)
        throw usage_error(fmt::format("{}: the graph has {} vertices, but the point asks n = {} (run with --sizes {})", in.s.input, f.n, r.n, f.n));
      return build_csr(f.n, std::move(f.edges), in.s.directed, weighted);
    };
    // A large file is parsed once and kept in the input cache like a generated graph, keyed by
    // its content, so every variant of a sweep does not parse it again.
    std::uintmax_t bytes = 0;
    const auto id = file_identity(in.s.input, bytes);
    if (bytes >= cache_from_file_bytes) {
      const auto key = hash_text(fmt::format("graph file v2|{}|{}|{}|{}", id, in.s.format, in.s.directed, weighted ? "weighted" : "unweighted"));
      graph_source how = graph_source::built;
      in.g = cached_graph(r, problem, key, build, &how);
      if (r.notes) (*r.notes)["graph"] = to_string(how);
    } else {
      in.g = build();
    }
    in.origin = in.s.input;
  } else {
    auto build = [&] { return build_csr(r.n, generate_edges(in.s.kind, r.n, in.s.degree, r.seed, weighted), in.s.directed, weighted); };
    // Graphs of 2^22 generated edges and more take seconds to build: kept in ema run's input
    // cache (inputs/graph_cache.hpp), keyed by everything that shapes them.
    const double generated = static_cast<double>(r.n) * (in.s.kind == graph_kind::grid ? 2 : in.s.degree);
    if (generated >= cache_from_edges) {
      const auto key = hash_text(fmt::format("graph v1|{}|{}|{}|{}|{}|{}", r.params->text("graph"), in.s.degree, in.s.directed,
                                             weighted ? "weighted" : "unweighted", r.n, r.seed));
      graph_source how = graph_source::built;
      in.g = cached_graph(r, problem, key, build, &how);
      if (r.notes) (*r.notes)["graph"] = to_string(how);
    } else {
      in.g = build();
    }
    in.origin = r.params->text("graph");
  }
  if (in.s.source >= 0 && static_cast<std::uint64_t>(in.s.source) >= in.g.n)
    throw usage_error(fmt::format("{}: source={} is past the graph's {} vertices (sources are 0-based)", problem, in.s.source, in.g.n));
  in.roots = draw_roots(in.g, in.s, r.seed);
  return in;
}

work_model estimated_work(std::uint64_t n, const param_set& p, double entry_bytes) {
  const double edges = static_cast<double>(n) * static_cast<double>(p.integer("degree"));
  const double roots = p.integer("source") >= 0 ? 1.0 : static_cast<double>(p.integer("roots"));
  return {roots * 2 * edges * entry_bytes, roots * edges};
}

double working_set(std::uint64_t n, const param_set& p, bool weighted, double state_bytes) {
  const double vertices = static_cast<double>(n);
  const double entries = vertices * static_cast<double>(p.integer("degree")) * (p.boolean("directed") ? 1.0 : 2.0);
  return 8 * (vertices + 1) + entries * (weighted ? 8.0 : 4.0) + state_bytes * vertices;
}

bool keeps_values(const csr_graph& g, std::size_t roots) { return roots * g.n <= g.neighbours.size(); }

bool same_values(const std::uint32_t* got, const std::uint32_t* want, std::uint64_t n) {
  bool differs = false;
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) reduction(|| : differs)
  for (std::int64_t v = 0; v < count; ++v) differs = differs || got[v] != want[v];
  return !differs;
}

root_summary summarise(const csr_graph& g, std::uint32_t root, const std::uint32_t* value) {
  root_summary s;
  s.source = root;
  std::uint64_t degrees = 0, reached = 0, sum = 0;
  std::uint32_t largest = 0;
  const auto n = static_cast<std::int64_t>(g.n);
#pragma omp parallel for schedule(static) reduction(+ : degrees, reached, sum) reduction(max : largest)
  for (std::int64_t v = 0; v < n; ++v)
    if (value[v] != std::numeric_limits<std::uint32_t>::max()) {
      ++reached;
      largest = std::max(largest, value[v]);
      sum += value[v];
      degrees += g.degree(static_cast<std::uint64_t>(v));
    }
  s.reached = reached;
  s.max = largest;
  s.sum = sum;
  s.edges = g.directed ? degrees : degrees / 2;  // undirected: each edge in both endpoints' rows
  return s;
}

std::string result_json(const std::vector<root_summary>& roots, const char* max_name, const char* sum_name) {
  std::string list;
  std::uint64_t edges = 0;
  for (const auto& s : roots) {
    list += fmt::format(R"({}{{"source":{},"reached":{},"{}":{},"{}":{}}})", list.empty() ? "" : ",", s.source, s.reached, max_name, s.max, sum_name,
                        s.sum);
    edges += s.edges;
  }
  return fmt::format(R"({{"roots":[{}],"edges":{}}})", list, edges);
}

std::string compare(const root_summary& got, const root_summary& reference, const char* what) {
  if (got.reached == reference.reached && got.max == reference.max && got.sum == reference.sum) return "";
  return fmt::format("reached {} vertices, largest {} {}, {} sum {}; the reference: {}, {}, {}", got.reached, what, got.max, what, got.sum,
                     reference.reached, reference.max, reference.sum);
}

void each_root(std::size_t roots, run_context& ctx, const std::function<void(std::size_t)>& search) {
  std::string times;
  {
    host_phase kernel(ctx, "kernel");
    for (std::size_t r = 0; r < roots; ++r) {
      const auto start = std::chrono::steady_clock::now();
      search(r);
      const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
      times += fmt::format("{}{:.4g}", times.empty() ? "" : ",", took.count());
    }
  }
  ctx.note("root_ms", times);
}

std::uint64_t local_edges_of(const param_set& p, const char* problem) {
  return static_cast<std::uint64_t>(integer_in(p, problem, "local_edges", 0, max_local_edges));
}

}  // namespace ema::graph_problem
