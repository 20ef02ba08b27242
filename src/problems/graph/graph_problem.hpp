// What the graph problems (bfs, sssp; Nogueira, 004_96c7929830a11cf7.txt, Algorithms 1, 2, 7 and 8) share,
// in the GAP benchmark suite's and Graph500's conventions: their parameters, the graph of a point
// (generated and kept in ema run's input cache when large, or read from a file; inputs/graph.hpp,
// graph_file.hpp, graph_cache.hpp) and its roots (Graph500's: distinct vertices with an edge,
// drawn from the seed, or one fixed by `source`).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/problem.hpp"
#include "core/run_context.hpp"
#include "inputs/graph.hpp"

namespace ema::graph_problem {

/// The parameters every graph problem declares (its own may follow).
inline constexpr param_spec params[] = {
    {"graph", param_kind::choice, "kron", "generated graph: Graph500 Kronecker (n a power of two), uniform random, or a 2D grid", "kron|urand|grid"},
    {"degree", param_kind::integer, "16", "edges generated per vertex (kron, urand)"},
    {"directed", param_kind::boolean, "false", "keep the edges' direction (else each edge is followed both ways)"},
    {"roots", param_kind::integer, "16", "searches per point, from distinct vertices with an edge drawn from the seed"},
    {"source", param_kind::integer, "-1", "search from this vertex alone (0-based), instead of drawn roots"},
    {"input", param_kind::path, "", "read the graph from this file (n from the file): Matrix Market, SNAP edge list or DIMACS .gr"},
    {"format", param_kind::choice, "auto", "the file's format (auto: by its extension: .mtx, .el/.txt/.wel, .gr)", "auto|mtx|el|gr"},
};

/// The GPU variants' small levels on the device (bfs cuda, sssp cuda; problems/graph/frontier.cuh): a
/// level or bucket with at most `local_edges` edges out of its frontier runs with the next small
/// ones in one cooperative grid, without the host; 0: every one from the host. A tuning parameter.
inline constexpr param_spec local_edges_param = {
    "local_edges",
    param_kind::integer,
    "16384",
    "GPU: a level with at most this many edges out of its frontier (and no vertex of more than 64) runs on the device with the next "
    "small ones, without the host (0: every level from the host)",
    nullptr,
    true};
constexpr std::int64_t max_local_edges = std::int64_t{1} << 20;
/// The parameter `local_edges`, checked (usage_error naming `problem` outside [0, max_local_edges]).
std::uint64_t local_edges_of(const param_set& p, const char* problem);

/// The most roots a point may search from.
constexpr std::int64_t max_roots = 1024;

struct settings {
  graph_kind kind = graph_kind::kron;
  std::string input;   ///< a graph file, or "" for a generated graph
  std::string format;  ///< the file's format by name, or "" for its extension's
  int degree = 16;
  bool directed = false;
  int roots = 16;
  std::int64_t source = -1;  ///< a single root fixed by the user, or -1
  static settings of(const param_set& p, const char* problem);
};

/// A point's graph and roots. A weighted graph (sssp) carries a weight per edge: a generated
/// graph's uniform in [1, 255] (GAP's), a file's as written (1 where the file gives none).
struct graph_input {
  settings s;
  csr_graph g;
  std::vector<std::uint32_t> roots;
  std::string origin;  ///< "kron", "urand", "grid" or the file's path
};

graph_input make_input(const point_request& r, const char* problem, bool weighted);

/// problem_desc::validate and ::size_from_input for a graph problem named `problem`.
void validate(const param_set& p, std::span<const std::uint64_t> sizes, const char* problem);
std::uint64_t size_from_input(const param_set& p);
/// problem_desc::size_near: a kron graph has 2^scale vertices, so the power of two nearest n (in
/// log n); any other generated graph takes every n.
std::uint64_t size_near(const param_set& p, std::uint64_t n);

/// The work model's estimate from n alone (the rate uses the edges each point reached, from its
/// result): the roots times the generated edges, each entry of `entry_bytes` read both ways.
work_model estimated_work(std::uint64_t n, const param_set& p, double entry_bytes);

/// The bytes one search holds (problem_desc::working_set): the graph's rows (8-byte offsets, 4-byte
/// neighbour entries, twice the edges of an undirected graph, and as many 4-byte weights where
/// `weighted`) and `state_bytes` a vertex of the search's own arrays. Not estimated_work's bytes,
/// which are the traffic of all the roots' searches: those overstated a kron-2^20 bfs's set ~8x
/// (2 GiB where ~180 MiB is held), so its data inside a 260 MiB L3 passed for uncached.
double working_set(std::uint64_t n, const param_set& p, bool weighted, double state_bytes);

/// One root's search summarised from its answer, a value per vertex (a depth, a distance;
/// UINT32_MAX where not reached): what the verifiers compare with their references and report.
struct root_summary {
  std::uint32_t source = 0;
  std::uint64_t reached = 0;  ///< vertices reached, the root included
  std::uint32_t max = 0;      ///< the largest value
  std::uint64_t sum = 0;      ///< the values' sum
  std::uint64_t edges = 0;    ///< input edges of the part reached (an undirected edge once: Graph500's count for TEPS)
};
root_summary summarise(const csr_graph& g, std::uint32_t root, const std::uint32_t* value);

/// What a verifier keeps of its reference searches: each root's summary and, where they take no
/// more memory than the graph's neighbour lists (keeps_values), the values themselves (root r's of
/// vertex v at r * n + v), which make a run's check a pass over the vertices rather than the edges.
struct reference_answer {
  std::vector<root_summary> roots;
  std::vector<std::uint32_t> values;  ///< empty where not kept
};

/// Whether a reference of `roots` searches keeps its values: roots · n no more than the neighbour
/// entries (kron and urand at their default degree; not a grid searched from 16 roots).
bool keeps_values(const csr_graph& g, std::size_t roots);

/// Whether the n values of `got` equal those of `want` (compared in parallel).
bool same_values(const std::uint32_t* got, const std::uint32_t* want, std::uint64_t n);

/// The result JSON of a point: per root its `source`, `reached`, `<max_name>` and `<sum_name>`,
/// and `edges`, their sum over the roots (the rate's count, rate_desc::work_field).
std::string result_json(const std::vector<root_summary>& roots, const char* max_name, const char* sum_name);

/// "" when `got` (a variant's answer, summarised) agrees with the reference's, else what differs,
/// the values named `what` ("depth", "distance").
std::string compare(const root_summary& got, const root_summary& reference, const char* what);

/// A CPU variant's searches: search(r) for each root index r in order inside the `kernel` phase,
/// each timed, the times recorded in the note `root_ms` (milliseconds, comma-separated, in the
/// roots' order: Graph500 reports them one by one).
void each_root(std::size_t roots, run_context& ctx, const std::function<void(std::size_t)>& search);

}  // namespace ema::graph_problem
