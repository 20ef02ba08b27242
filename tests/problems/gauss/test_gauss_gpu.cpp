// gauss: the CUDA variants on singular matrices and larger systems, and the launch counts
// the source's algorithms need (run on the GPU machine; exits 77 elsewhere).
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "problems/gauss/gauss_singular.hpp"

namespace ema {
namespace {

bool on_gpu(const variant_desc& v) { return uses_gpu(v.backend); }

TEST(GaussGpu, CudaVariantsReportASingularMatrix) { test::gauss_variants_report_singular(on_gpu); }

TEST(GaussGpu, LargerSystemsAcrossSeveralPanelBlocks) {
  // Orders that give the blocked LU several outer panels, a ragged last strip and (from 1025
  // rows in float, 513 in double) a panel kernel spread over more than one block.
  const auto& problem = find_problem("gauss");
  for (const char* name : {"cuda", "cusolver", "cuda-kv2"})
    for (const char* matrix : {"dense", "general"})
      for (auto n : {1000ull, 1601ull, 3100ull}) {
        const auto& v = find_variant("gauss", name);
        auto params = test::gauss_params({std::string("matrix=") + matrix});
        if (v.not_applicable && v.not_applicable(params, n)) continue;
        auto w = problem.prepare({n, &params, 5, host_memory_kind::pinned});
        auto got = test::run_gauss(v, *w, n, params);
        EXPECT_TRUE(got.verified) << name << " " << matrix << " n=" << n << ": " << got.reason;
      }
}

/// One run of gauss/cuda at order n with `settings` on top of the type's parameters, verified:
/// its result (the scaled residual) and its notes.
std::pair<std::string, std::map<std::string, std::string>> lu_run(const char* type, std::uint64_t n,
                                                                  std::initializer_list<std::pair<const char*, const char*>> settings) {
  const auto& problem = find_problem("gauss");
  const auto& v = find_variant("gauss", "cuda");
  auto params = test::gauss_params({std::string("type=") + type, "matrix=general"});
  auto w = problem.prepare({n, &params, 7, host_memory_kind::pinned});
  for (auto [key, value] : settings) params = params.with(key, value);
  run_context ctx(n, params, 1);
  ctx.begin_repetition();
  const auto got = v.run(*w, ctx);
  EXPECT_TRUE(got.verified) << type << " n=" << n << ": " << got.reason;
  return {got.result_json, ctx.notes()};
}

/// Whether a run's launches were a replayed graph, as its note says ("?" where it has none).
std::string replayed_note(const std::map<std::string, std::string>& notes) {
  const auto it = notes.find("graph_replayed");
  EXPECT_TRUE(it != notes.end());
  return it != notes.end() ? it->second : "?";
}

/// A strip of more rows than one block holds (1024 in float, 512 in double) runs on several
/// blocks: one thread-block cluster where they fit one (up to 8 always, up to 16 where the device
/// allows), else a cooperative grid; `launch.cluster=0` always takes the grid. Both pick the same
/// pivots and do the same arithmetic, so the answers are the same to the last bit.
void clusters_and_grid_agree(const char* type, std::uint64_t n) {
  ASSERT_FALSE(gpu::query().devices.empty());
  const bool clusters = gpu::query().devices.front().cc_major >= 9;  // thread-block clusters: compute capability 9.0
  const std::uint64_t rows_per_block = std::string(type) == "f32" ? 1024 : 512;
  const auto first_blocks = (n + rows_per_block - 1) / rows_per_block;
  std::map<std::string, std::string> residual;
  for (const char* cluster : {"1", "0"}) {
    const auto [result, notes] = lu_run(type, n, {{"launch.cluster", cluster}});
    const std::string at = std::string(type) + " n=" + std::to_string(n) + " cluster=" + cluster;
    residual[cluster] = result;
    ASSERT_TRUE(notes.count("strips_cluster") && notes.count("strips_grid") && notes.count("strips_one_block")) << at;
    const auto on_cluster = std::stoi(notes.at("strips_cluster")), on_grid = std::stoi(notes.at("strips_grid"));
    const auto on_one = std::stoi(notes.at("strips_one_block"));
    EXPECT_EQ(on_one + on_cluster + on_grid, static_cast<int>((n + 31) / 32)) << at << ": a strip is 32 columns";
    EXPECT_GT(on_one, 0) << at << ": the last strips fit one block";
    if (std::string(cluster) == "0" || !clusters) {
      EXPECT_EQ(on_cluster, 0) << at;
      EXPECT_GT(on_grid, 0) << at;
    } else {
      EXPECT_GT(on_cluster, 0) << at;
      if (first_blocks <= 8) EXPECT_EQ(on_grid, 0) << at << ": up to 8 blocks always fit a cluster";
      if (first_blocks > 16) EXPECT_GT(on_grid, 0) << at << ": " << first_blocks << " blocks are more than a cluster holds";
    }
  }
  EXPECT_EQ(residual["1"], residual["0"]) << type << " n=" << n;
}

TEST(GaussGpu, ThePanelKernelsBlocksMeetAtAClustersBarrierWhereTheyFitOne) {
  clusters_and_grid_agree("f32", 1100);  // 2 blocks at the first strip
  clusters_and_grid_agree("f64", 1100);  // 3
}

TEST(GaussGpu, ThePanelKernelsBlocksMeetAtTheGridsBarrierPastACluster) {
  clusters_and_grid_agree("f64", 5000);  // 10 blocks: a cluster past the portable 8, where the device allows it
  clusters_and_grid_agree("f64", 9000);  // 18 at the first strips: the grid, then clusters as the strips shrink
}

/// The factorisation's launches, captured in a CUDA graph once and replayed (launch.graph=1, the
/// default), give the answer the same launches issued one by one give, to the last bit; a second
/// run of the same order replays the graph (the runs allocate the same buffers in the same order,
/// which cudaMalloc hands back at the same addresses); another order or setting captures anew.
TEST(GaussGpu, TheFactorisationCapturedInAGraphAndReplayedGivesTheIssuedAnswer) {
  for (auto [type, n, other] : {std::tuple{"f32", std::uint64_t{1100}, std::uint64_t{1000}}, {"f64", 1100, 1000}}) {
    const auto issued = lu_run(type, n, {{"launch.graph", "0"}});
    EXPECT_EQ(replayed_note(issued.second), "0") << type << ": launches issued one by one are no replay";
    const auto captured = lu_run(type, n, {{"launch.graph", "1"}});
    EXPECT_EQ(replayed_note(captured.second), "0") << type << ": the first run of a size captures";
    const auto replayed = lu_run(type, n, {{"launch.graph", "1"}});
    EXPECT_EQ(replayed_note(replayed.second), "1") << type << ": the same order again replays";
    EXPECT_EQ(replayed_note(lu_run(type, n, {{"launch.graph", "1"}, {"launch.cluster", "0"}}).second), "0")
        << type << ": another setting captures anew";
    EXPECT_EQ(replayed_note(lu_run(type, other, {{"launch.graph", "1"}}).second), "0") << type << ": another order captures anew";
    EXPECT_EQ(captured.first, issued.first) << type << " n=" << n;
    EXPECT_EQ(replayed.first, issued.first) << type << " n=" << n;
  }
}

TEST(GaussGpu, SourceVariantsLaunchWhatTheirAlgorithmNeeds) {
  // Kv1: the mirror, n - 1 stage-1 steps, and two launches per equation; Kv2: one per equation;
  // the Gonçalves baseline: n - 1.
  const auto& problem = find_problem("gauss");
  auto params = test::gauss_params({});
  const std::uint64_t n = 100;
  auto w = problem.prepare({n, &params, 1, host_memory_kind::pinned});
  for (auto [name, launches] : {std::pair{"cuda-kv1", 1 + 99 + 200}, {"cuda-kv2", 1 + 99 + 100}, {"cuda-goncalves", 99}}) {
    run_context ctx(n, params, 1);
    auto got = find_variant("gauss", name).run(*w, ctx);
    EXPECT_TRUE(got.verified) << name << ": " << got.reason;
    EXPECT_EQ(ctx.notes().at("launches"), std::to_string(launches)) << name;
    EXPECT_GT(ctx.phases().at("stage1"), 0) << name;
    EXPECT_GT(ctx.phases().at("h2d"), 0) << name;
  }
}

}  // namespace
}  // namespace ema
