// gauss: the CUDA variants on singular matrices and larger systems, and the launch counts
// the source's algorithms need (run on the GPU machine; exits 77 elsewhere).
#include <gtest/gtest.h>

#include "problems/gauss/gauss_singular.hpp"

namespace ema {
namespace {

bool gpu(const variant_desc& v) { return uses_gpu(v.backend); }

TEST(GaussGpu, CudaVariantsReportASingularMatrix) { test::gauss_variants_report_singular(gpu); }

TEST(GaussGpu, LargerSystemsAcrossSeveralPanelBlocks) {
  // Orders that give the blocked LU several outer panels, a ragged last strip and (from 1537
  // rows in float) a panel kernel spread over more than one cooperative block.
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
