// bfs: hand-made graphs with known depths (a path, a star, a cycle, two components, isolated
// vertices, parallel edges and self-loops) in each file format, every CPU variant against them and
// against the reference on seeded kron, urand and grid graphs; the verifier catches wrong depths
// and parents; the roots are distinct vertices with an edge; malformed files are named.
#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/bfs/bfs.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

param_set bfs_params(const std::vector<std::string>& a) { return param_set::resolve("bfs", find_problem("bfs").params, a); }

bfs::input make(std::uint64_t n, const std::vector<std::string>& a, std::uint64_t seed = 7) {
  const auto p = bfs_params(a);
  return bfs::traits::generate({n, &p, seed, host_memory_kind::pageable});
}

/// Runs every CPU variant on the point; returns the result JSON they agree on.
nlohmann::json run_all(std::uint64_t n, const std::vector<std::string>& a, std::uint64_t seed = 7) {
  const auto& problem = find_problem("bfs");
  const auto params = bfs_params(a);
  auto w = problem.prepare({n, &params, seed, host_memory_kind::pageable});
  std::string agreed;
  for (const auto* v : variants_of("bfs")) {
    if (uses_gpu(v->backend)) continue;
    run_context ctx(n, params, 0);
    ctx.begin_repetition();
    const auto got = v->run(*w, ctx);
    EXPECT_TRUE(got.verified) << v->name << ": " << got.reason;
    EXPECT_TRUE(ctx.notes().count("root_ms")) << v->name;
    if (agreed.empty()) agreed = got.result_json;
    EXPECT_EQ(got.result_json, agreed) << v->name;
  }
  return nlohmann::json::parse(agreed);
}

struct known {
  const char* name;
  const char* el;  ///< the graph as a 0-based edge list
  std::uint64_t n;
  std::uint32_t source;
  std::uint64_t reached, max_depth, depth_sum, edges;
};

// Depths by hand. Undirected unless said.
const known graphs[] = {
    {"path", "0 1\n1 2\n2 3\n3 4\n", 5, 0, 5, 4, 0 + 1 + 2 + 3 + 4, 4},
    {"path from the middle", "0 1\n1 2\n2 3\n3 4\n", 5, 2, 5, 2, 2 + 1 + 0 + 1 + 2, 4},
    {"star", "0 1\n0 2\n0 3\n0 4\n0 5\n", 6, 3, 6, 2, 1 + 2 * 4, 5},
    {"cycle", "0 1\n1 2\n2 3\n3 4\n4 5\n5 0\n", 6, 0, 6, 3, 1 + 2 + 3 + 2 + 1, 6},
    {"two components", "0 1\n1 2\n3 4\n", 5, 4, 2, 1, 1, 1},
    {"isolated vertices", "1 3\n3 5\n", 6, 5, 3, 2, 1 + 2, 2},  // 0, 2, 4 have no edge
    {"parallel edges and self-loops", "0 1\n1 0\n0 1\n1 1\n1 2\n2 2\n", 3, 0, 3, 2, 1 + 2, 2},
};

std::string to_mtx(const known& g) {
  std::string out = "%%MatrixMarket matrix coordinate pattern general\n% a test graph\n";
  std::istringstream in(g.el);
  std::vector<std::pair<int, int>> edges;
  for (int u, v; in >> u >> v;) edges.push_back({u, v});
  out += fmt::format("{} {} {}\n", g.n, g.n, edges.size());
  for (auto [u, v] : edges) out += fmt::format("{} {}\n", u + 1, v + 1);
  return out;
}

std::string to_gr(const known& g) {
  std::istringstream in(g.el);
  std::vector<std::pair<int, int>> edges;
  for (int u, v; in >> u >> v;) edges.push_back({u, v});
  std::string out = fmt::format("c a test graph\np sp {} {}\n", g.n, edges.size());
  for (auto [u, v] : edges) out += fmt::format("a {} {} 1\n", u + 1, v + 1);
  return out;
}

TEST(Bfs, HandMadeGraphsInEveryFormat) {
  test::temp_dir dir;
  for (const auto& g : graphs) {
    const std::pair<std::string, std::string> files[] = {{"g.el", g.el}, {"g.mtx", to_mtx(g)}, {"g.gr", to_gr(g)}};
    for (const auto& [name, text] : files) {
      const auto path = dir.file(name);
      std::ofstream(path) << text;
      const std::vector<std::string> a = {"input=" + path, fmt::format("source={}", g.source)};
      EXPECT_EQ(find_problem("bfs").size_from_input(bfs_params(a)), g.n) << g.name << " " << name;
      const auto result = run_all(g.n, a);
      ASSERT_EQ(result["roots"].size(), 1u) << g.name;
      const auto& r = result["roots"][0];
      EXPECT_EQ(r["source"], g.source) << g.name << " " << name;
      EXPECT_EQ(r["reached"], g.reached) << g.name << " " << name;
      EXPECT_EQ(r["max_depth"], g.max_depth) << g.name << " " << name;
      EXPECT_EQ(r["depth_sum"], g.depth_sum) << g.name << " " << name;
      EXPECT_EQ(result["edges"], g.edges) << g.name << " " << name;
    }
  }
}

TEST(Bfs, DirectedEdgesAreFollowedOneWay) {
  test::temp_dir dir;
  const auto path = dir.file("d.el");
  std::ofstream(path) << "0 1\n1 2\n3 2\n";  // 3 -> 2 is not walkable from 0
  const auto result = run_all(4, {"input=" + path, "source=0", "directed=true"});
  EXPECT_EQ(result["roots"][0]["reached"], 3);
  EXPECT_EQ(result["roots"][0]["depth_sum"], 3);
  EXPECT_EQ(result["edges"], 2);  // the out-edges of 0 and 1
  EXPECT_EQ(run_all(4, {"input=" + path, "source=3", "directed=true"})["roots"][0]["reached"], 2);
}

TEST(Bfs, EveryVariantMatchesTheReferenceOnGeneratedGraphs) {
  for (const auto& a : std::vector<std::vector<std::string>>{
           {"graph=kron"}, {"graph=kron", "directed=true"}, {"graph=urand", "degree=3"}, {"graph=grid"}, {"graph=grid", "roots=4", "directed=true"}})
    for (std::uint64_t seed : {1u, 2u}) {
      const auto result = run_all(1 << 12, a, seed);
      EXPECT_EQ(result["roots"].size(), a.size() > 1 && a[1] == "roots=4" ? 4u : 16u);
    }
}

// A vertex count that is not a multiple of 64 (omp's bitmaps end inside a word) on a graph dense
// enough that omp's searches go bottom-up, where a step walks the visited bitmap's clear bits.
TEST(Bfs, EveryVariantMatchesTheReferenceWhenTheBitmapsEndInsideAWord) {
  for (std::uint64_t n : {5003u, 4097u})
    for (std::uint64_t seed : {1u, 2u}) EXPECT_EQ(run_all(n, {"graph=urand", "degree=8"}, seed)["roots"].size(), 16u) << n;
  // A grid switches direction several times a search with small frontiers: omp then adds the few
  // vertices claimed since the last bottom-up phase to its visited bitmap, not a pass over all n.
  for (std::uint64_t n : {4900u, 20000u}) EXPECT_EQ(run_all(n, {"graph=grid"}, 3)["roots"].size(), 16u) << n;
}

// omp says where its time went (issue 33): top-down, bottom-up and the conversions between the
// frontier's forms, and the frontier at each switch. On a kron graph it goes bottom-up; on a
// directed one it cannot (bottom-up needs in-edges).
TEST(Bfs, OmpSplitsItsTimeByDirection) {
  const auto& problem = find_problem("bfs");
  const auto* v = lookup_variant("bfs", "omp");
  ASSERT_NE(v, nullptr);
  auto run = [&](std::uint64_t n, const std::vector<std::string>& a) {
    const auto params = bfs_params(a);
    auto w = problem.prepare({n, &params, 7, host_memory_kind::pageable});
    run_context ctx(n, params, 0);
    ctx.begin_repetition();
    EXPECT_TRUE(v->run(*w, ctx).verified);
    std::map<std::string, std::int64_t> notes;
    for (const char* k : {"top_down_us", "bottom_up_us", "conversions_us", "frontier_at_switch", "bottom_up_levels"})
      notes[k] = std::stoll(ctx.notes().at(k));
    return notes;
  };
  const auto kron = run(1u << 14, {"graph=kron", "roots=4"});
  EXPECT_GT(kron.at("bottom_up_levels"), 0);
  EXPECT_GT(kron.at("frontier_at_switch"), 0);
  EXPECT_GT(kron.at("bottom_up_us") + kron.at("top_down_us"), 0);
  for (const char* k : {"top_down_us", "bottom_up_us", "conversions_us"}) EXPECT_GE(kron.at(k), 0) << k;
  const auto directed = run(1u << 14, {"graph=kron", "directed=true", "roots=4"});
  EXPECT_EQ(directed.at("bottom_up_levels"), 0);
  EXPECT_EQ(directed.at("frontier_at_switch"), 0);
  EXPECT_EQ(directed.at("bottom_up_us"), 0);
  EXPECT_EQ(directed.at("conversions_us"), 0);
  EXPECT_GT(directed.at("top_down_us"), 0);
}

// omp's two ways to claim a vertex in a top-down step (launch.claim): GAP's compare-and-swap, and a
// plain store where two threads may claim one vertex. Both give a verified search, the same depths,
// and on a directed graph (top-down only) the same as on an undirected one's reference.
TEST(Bfs, OmpClaimsByCompareAndSwapOrByAStore) {
  const auto& problem = find_problem("bfs");
  const auto* v = lookup_variant("bfs", "omp");
  ASSERT_NE(v, nullptr);
  for (const std::vector<std::string> a : {std::vector<std::string>{"graph=kron"}, {"graph=urand", "degree=12"}, {"graph=kron", "directed=true"}}) {
    std::string agreed;
    for (const char* claim : {"0", "1"}) {
      const auto params = bfs_params(a).with("launch.claim", claim);
      const std::uint64_t n = a[0] == "graph=kron" ? 1u << 13 : (1u << 13) + 5;
      auto w = problem.prepare({n, &params, 3, host_memory_kind::pageable});
      run_context ctx(n, params, 0);
      ctx.begin_repetition();
      const auto got = v->run(*w, ctx);
      EXPECT_TRUE(got.verified) << a[0] << " claim " << claim << ": " << got.reason;
      ASSERT_TRUE(ctx.notes().count("claimed_twice"));
      if (std::string(claim) == "0") EXPECT_EQ(ctx.notes().at("claimed_twice"), "0");  // a compare-and-swap claims once
      if (agreed.empty()) agreed = got.result_json;
      EXPECT_EQ(got.result_json, agreed) << a[0] << " claim " << claim;
    }
  }
}

TEST(Bfs, RootsAreDistinctVerticesWithAnEdge) {
  const auto in = make(1 << 12, {"graph=kron", "roots=64"});
  ASSERT_EQ(in.roots.size(), 64u);
  std::set<std::uint32_t> seen(in.roots.begin(), in.roots.end());
  EXPECT_EQ(seen.size(), 64u);
  for (auto r : in.roots) EXPECT_GT(in.g.degree(r), 0u) << r;
  EXPECT_EQ(make(1 << 12, {"graph=kron", "roots=64"}).roots, in.roots) << "seeded";
  EXPECT_NE(make(1 << 12, {"graph=kron", "roots=64"}, 8).roots, in.roots);
  // Fewer vertices with an edge than roots asked: all of them; none: vertex 0.
  const auto few = make(9, {"graph=grid", "roots=16"});
  std::uint64_t with_edge = 0;
  for (std::uint64_t v = 0; v < few.n(); ++v) with_edge += few.g.degree(v) > 0;
  EXPECT_GT(with_edge, 1u);
  EXPECT_EQ(few.roots.size(), with_edge);
  EXPECT_EQ(make(1, {"graph=urand"}).roots, std::vector<std::uint32_t>{0});
  EXPECT_EQ(make(100, {"graph=grid", "source=42"}).roots, std::vector<std::uint32_t>{42});
}

TEST(Bfs, VerifierCatchesWrongDepthsAndParents) {
  const auto in = make(1 << 10, {"graph=urand", "degree=4", "roots=2"});
  const auto expected = bfs::traits::reference(in);
  bfs::output right;
  const std::uint64_t n = in.n();
  right.depth.assign(2 * n, bfs::unreached);
  right.parent.assign(2 * n, bfs::unreached);
  for (int r = 0; r < 2; ++r) {
    const auto d = bfs::reference_depths(in.g, in.roots[r]);
    std::copy(d.begin(), d.end(), right.depth.begin() + r * n);
    right.parent[r * n + in.roots[r]] = in.roots[r];
    for (std::uint64_t v = 0; v < n; ++v)
      if (d[v] != bfs::unreached && d[v] > 0)
        for (std::uint64_t i = in.g.offsets[v]; i < in.g.offsets[v + 1]; ++i)
          if (d[in.g.neighbours[i]] + 1 == d[v]) {
            right.parent[r * n + v] = in.g.neighbours[i];
            break;
          }
  }
  const auto ok = bfs::traits::check(in, expected, right);
  ASSERT_TRUE(ok.verified) << ok.reason;
  auto without_parents = right;
  without_parents.parent.clear();
  EXPECT_TRUE(bfs::traits::check(in, expected, without_parents).verified);

  auto expect_caught = [&](const bfs::output& bad, const char* needle) {
    const auto o = bfs::traits::check(in, expected, bad);
    EXPECT_FALSE(o.verified) << needle;
    EXPECT_NE(o.reason.find(needle), std::string::npos) << o.reason;
  };
  // A vertex two levels deeper than it is (its neighbours say so).
  std::uint64_t far = 0;
  for (std::uint64_t v = 0; v < n; ++v)
    if (right.depth[v] != bfs::unreached && right.depth[v] > right.depth[far]) far = v;
  auto deeper = without_parents;
  deeper.depth[far] += 2;
  expect_caught(deeper, "but its neighbour");
  // A reached vertex marked unreached.
  auto lost = without_parents;
  lost.depth[far] = bfs::unreached;
  expect_caught(lost, "which is not reached");
  // A parent that is reached but not one level up.
  auto parent = right;
  parent.parent[far] = in.roots[0];
  expect_caught(parent, "not one level up");
  // A parent one level up that has no edge to it (its depths are the reference's: the check that
  // compares them finds the parent edge missing, the contract names it).
  std::optional<std::uint32_t> stranger;
  for (std::uint64_t u = 0; u < n && !stranger; ++u)
    if (right.depth[u] + 1 == right.depth[far] &&
        !std::binary_search(in.g.neighbours.begin() + static_cast<std::ptrdiff_t>(in.g.offsets[u]),
                            in.g.neighbours.begin() + static_cast<std::ptrdiff_t>(in.g.offsets[u + 1]), static_cast<std::uint32_t>(far)))
      stranger = static_cast<std::uint32_t>(u);
  ASSERT_TRUE(stranger) << "urand-1024 has more than one vertex a level above the deepest";
  auto unlinked = right;
  unlinked.parent[far] = *stranger;
  expect_caught(unlinked, fmt::format("has parent {}, but no edge", *stranger).c_str());
  // A neighbour list out of order (a cache file written by another program) fails no right answer:
  // the edge the sorted search misses, the contract finds.
  auto unsorted = in;
  for (std::uint64_t v = 0; v < n; ++v)
    std::reverse(unsorted.g.neighbours.begin() + static_cast<std::ptrdiff_t>(unsorted.g.offsets[v]),
                 unsorted.g.neighbours.begin() + static_cast<std::ptrdiff_t>(unsorted.g.offsets[v + 1]));
  const auto from_unsorted = bfs::traits::check(unsorted, bfs::traits::reference(unsorted), right);
  EXPECT_TRUE(from_unsorted.verified) << from_unsorted.reason;
  // The reference's depths are kept where they take no more memory than the neighbour lists: here
  // (2 roots, 8 entries a vertex), not on a grid searched from 16 roots (4 a vertex).
  EXPECT_EQ(expected.values.size(), 2 * n);
  EXPECT_TRUE(bfs::traits::reference(make(1 << 10, {"graph=grid", "roots=16"})).values.empty());
  // The root not at depth 0; the wrong root count.
  auto root = without_parents;
  root.depth[n + in.roots[1]] = 1;
  expect_caught(root, "root 1");
  expect_caught(bfs::output{}, "holds 0 depths");
}

TEST(Bfs, BadParametersAndFilesAreNamed) {
  test::temp_dir dir;
  const auto& problem = find_problem("bfs");
  auto refused = [&](const std::vector<std::string>& a, std::uint64_t n, const char* needle) {
    try {
      problem.validate(bfs_params(a), std::span<const std::uint64_t>(&n, 1));
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refused({"graph=kron"}, 1000, "power of two");
  refused({"graph=kron"}, std::uint64_t{1} << 31, "would need about");  // 2^35 edges: far past any machine's memory
  refused({"graph=urand", "source=10"}, 10, "source=10 is past");
  refused({"graph=urand"}, 0, "at least 1");
  const auto bad = dir.file("bad.el");
  std::ofstream(bad) << "0 1\n1 x\n";
  refused({"input=" + bad}, 2, "bad.el:2");
  const auto good = dir.file("good.el");
  std::ofstream(good) << "0 1\n1 2\n";
  refused({"input=" + good}, 4, "the graph has 3 vertices, but the point asks n = 4");
  const auto empty = dir.file("empty.el");
  std::ofstream(empty) << "# no edges\n";
  refused({"input=" + empty}, 1, "holds no graph");
  EXPECT_THROW(problem.size_from_input(bfs_params({"input=" + empty})), usage_error) << "0 would read as no file";
  const auto odd = dir.file("g.xyz");
  std::ofstream(odd) << "0 1\n";
  refused({"input=" + odd}, 2, "g.xyz");
  EXPECT_NO_THROW(problem.validate(bfs_params({"input=" + odd, "format=el"}), std::span<const std::uint64_t>()));
}

}  // namespace
}  // namespace ema
