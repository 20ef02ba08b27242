// sssp: hand-made weighted graphs with known distances (a path, a shortcut that is longer than a
// detour, a cycle, two components, isolated vertices, parallel edges keeping the lightest, a
// self-loop) in each file format, every CPU variant against them and against the reference on
// seeded kron, urand and grid graphs; the verifier catches wrong distances; distances that could
// pass 32 bits are refused.
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/sssp/sssp.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

param_set sssp_params(const std::vector<std::string>& a) { return param_set::resolve("sssp", find_problem("sssp").params, a); }

sssp::input make(std::uint64_t n, const std::vector<std::string>& a, std::uint64_t seed = 7) {
  const auto p = sssp_params(a);
  return sssp::traits::generate({n, &p, seed, host_memory_kind::pageable});
}

nlohmann::json run_all(std::uint64_t n, const std::vector<std::string>& a, std::uint64_t seed = 7) {
  const auto& problem = find_problem("sssp");
  const auto params = sssp_params(a);
  auto w = problem.prepare({n, &params, seed, host_memory_kind::pageable});
  std::string agreed;
  for (const auto* v : variants_of("sssp")) {
    if (uses_gpu(v->backend)) continue;
    run_context ctx(n, params, 0);
    ctx.begin_repetition();
    const auto got = v->run(*w, ctx);
    EXPECT_TRUE(got.verified) << v->name << ": " << got.reason;
    if (agreed.empty()) agreed = got.result_json;
    EXPECT_EQ(got.result_json, agreed) << v->name;
  }
  return nlohmann::json::parse(agreed);
}

struct known {
  const char* name;
  const char* wel;  ///< 0-based `u v w` lines
  std::uint64_t n;
  std::uint32_t source;
  std::uint64_t reached, max_dist, dist_sum, edges;
};

const known graphs[] = {
    {"path", "0 1 3\n1 2 4\n2 3 5\n", 4, 0, 4, 12, 3 + 7 + 12, 3},
    {"a heavy shortcut loses to a detour", "0 1 1\n1 2 1\n0 2 10\n", 3, 0, 3, 2, 1 + 2, 3},
    {"cycle", "0 1 2\n1 2 2\n2 3 2\n3 0 1\n", 4, 0, 4, 3, 2 + 3 + 1, 4},
    {"two components", "0 1 5\n2 3 7\n", 4, 3, 2, 7, 7, 1},
    {"isolated vertices", "1 3 2\n3 5 2\n", 6, 1, 3, 4, 2 + 4, 2},
    {"parallel edges keep the lightest; self-loops go", "0 1 9\n0 1 2\n1 1 1\n1 2 3\n", 3, 0, 3, 5, 2 + 5, 2},
};

std::vector<std::tuple<int, int, int>> edges_of(const known& g) {
  std::istringstream in(g.wel);
  std::vector<std::tuple<int, int, int>> e;
  for (int u, v, w; in >> u >> v >> w;) e.push_back({u, v, w});
  return e;
}

TEST(Sssp, HandMadeGraphsInEveryFormat) {
  test::temp_dir dir;
  for (const auto& g : graphs) {
    const auto e = edges_of(g);
    std::string mtx = fmt::format("%%MatrixMarket matrix coordinate integer general\n{} {} {}\n", g.n, g.n, e.size());
    std::string gr = fmt::format("c test\np sp {} {}\n", g.n, e.size());
    for (auto [u, v, w] : e) {
      mtx += fmt::format("{} {} {}\n", u + 1, v + 1, w);
      gr += fmt::format("a {} {} {}\n", u + 1, v + 1, w);
    }
    const std::pair<std::string, std::string> files[] = {{"g.wel", g.wel}, {"g.mtx", mtx}, {"g.gr", gr}};
    for (const auto& [name, text] : files) {
      const auto path = dir.file(name);
      std::ofstream(path) << text;
      const auto result = run_all(g.n, {"input=" + path, fmt::format("source={}", g.source)});
      const auto& r = result["roots"][0];
      EXPECT_EQ(r["reached"], g.reached) << g.name << " " << name;
      EXPECT_EQ(r["max_dist"], g.max_dist) << g.name << " " << name;
      EXPECT_EQ(r["dist_sum"], g.dist_sum) << g.name << " " << name;
      EXPECT_EQ(result["edges"], g.edges) << g.name << " " << name;
    }
  }
}

TEST(Sssp, DirectedEdgesAreFollowedOneWay) {
  test::temp_dir dir;
  const auto path = dir.file("d.wel");
  std::ofstream(path) << "0 1 4\n1 2 4\n2 0 1\n0 2 20\n";
  const auto r = run_all(3, {"input=" + path, "source=0", "directed=true"})["roots"][0];
  EXPECT_EQ(r["dist_sum"], 4 + 8);
  EXPECT_EQ(run_all(3, {"input=" + path, "source=2", "directed=true"})["roots"][0]["dist_sum"], 1 + 5);
}

TEST(Sssp, EveryVariantMatchesDijkstraOnGeneratedGraphs) {
  for (const auto& a : std::vector<std::vector<std::string>>{
           {"graph=kron"}, {"graph=kron", "directed=true"}, {"graph=urand", "degree=3"}, {"graph=grid"}, {"graph=grid", "directed=true"}})
    for (std::uint64_t seed : {1u, 2u}) run_all(1 << 12, a, seed);
  const auto in = make(1 << 10, {"graph=urand"});
  ASSERT_FALSE(in.g.weights.empty());
  for (auto w : in.g.weights) {
    ASSERT_GE(w, 1u);
    ASSERT_LE(w, 255u);
  }
  EXPECT_TRUE(in.edge_origin.empty());  // built by the variants that read it (below)
}

TEST(Sssp, VerifierCatchesWrongDistances) {
  const auto in = make(1 << 10, {"graph=urand", "degree=4", "roots=2"});
  const auto expected = sssp::traits::reference(in);
  const std::uint64_t n = in.n();
  sssp::output right;
  right.dist.assign(2 * n, sssp::unreached);
  for (int r = 0; r < 2; ++r) sssp::dijkstra(in.g, in.roots[r], right.dist.data() + r * n);
  ASSERT_TRUE(sssp::traits::check(in, expected, right).verified);
  // Dijkstra's distances are kept here (2 roots, 8 neighbour entries a vertex): a run equal to them
  // passes in O(n), one that differs is judged by the contract, whose messages follow.
  EXPECT_EQ(expected.values.size(), 2 * n);
  EXPECT_TRUE(sssp::traits::reference(make(1 << 10, {"graph=grid", "roots=16"})).values.empty());
  auto expect_caught = [&](const sssp::output& bad, const char* needle) {
    const auto o = sssp::traits::check(in, expected, bad);
    EXPECT_FALSE(o.verified) << needle;
    EXPECT_NE(o.reason.find(needle), std::string::npos) << o.reason;
  };
  std::uint64_t far = 0;
  for (std::uint64_t v = 0; v < n; ++v)
    if (right.dist[v] != sssp::unreached && right.dist[v] > right.dist[far]) far = v;
  auto longer = right;
  longer.dist[far] += 1000;
  expect_caught(longer, "but the edge from");
  auto shorter = right;
  shorter.dist[far] -= 1;  // no edge gives it
  expect_caught(shorter, "no edge into it gives that distance");
  auto lost = right;
  lost.dist[far] = sssp::unreached;
  expect_caught(lost, "which is not reached");
  auto root = right;
  root.dist[n + in.roots[1]] = 3;
  expect_caught(root, "root 1");
  expect_caught(sssp::output{}, "holds 0 distances");
}

TEST(Sssp, DistancesThatCouldPass32BitsAreRefused) {
  test::temp_dir dir;
  const auto path = dir.file("heavy.wel");
  std::ofstream(path) << "0 1 4000000000\n1 2 4000000000\n";
  try {
    make(3, {"input=" + path});
    ADD_FAILURE() << "accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("past ema's 32-bit distances"), std::string::npos) << e.what();
  }
}

// The source's edge list (4 bytes a CSR entry) is built for the variants that read it, outside
// their time, and only once for a workload they share; the other variants never hold it.
TEST(Sssp, TheEdgeListIsBuiltOnlyForTheVariantsThatReadIt) {
  const auto params = sssp_params({"graph=urand", "degree=4", "roots=2"});
  auto w = find_problem("sssp").prepare({300, &params, 3, host_memory_kind::pageable});
  const auto& in = static_cast<sssp::kit::typed_workload&>(*w).in;
  ASSERT_FALSE(in.g.neighbours.empty());
  auto run = [&](const char* name) {
    run_context ctx(300, params, 0);
    ctx.begin_repetition();
    const auto got = find_variant("sssp", name).run(*w, ctx);
    EXPECT_TRUE(got.verified) << name << ": " << got.reason;
  };
  run("seq");
  run("omp");
  EXPECT_TRUE(in.edge_origin.empty());
  run("omp-listing");
  ASSERT_EQ(in.edge_origin.size(), in.g.neighbours.size());
  for (std::uint64_t u = 0; u < in.g.n; ++u)
    for (std::uint64_t i = in.g.offsets[u]; i < in.g.offsets[u + 1]; ++i) ASSERT_EQ(in.edge_origin[i], u) << "entry " << i;
  const auto* built = in.edge_origin.data();
  run("omp-listing");
  EXPECT_EQ(in.edge_origin.data(), built);  // built once
}

}  // namespace
}  // namespace ema
