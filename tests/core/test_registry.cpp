// The registry holds exactly the problems and variants this build configuration compiles.
#include <gtest/gtest.h>
#include <set>

#include "core/errors.hpp"
#include "core/registry.hpp"

namespace ema {
namespace {

std::set<std::string> registered() {
  std::set<std::string> out;
  for (const auto* v : variants()) out.insert(std::string(v->problem) + "/" + v->name + "/" + std::string(to_string(v->backend)));
  return out;
}

TEST(Registry, ContentsMatchTheBuildConfiguration) {
  std::set<std::string> expected = {"search/seq/seq", "gauss/seq/seq", "rqa/exact-seq/seq", "rqa/seed-seq/seq",
                                     "rqa/motif-seq/seq"};
#ifdef EMA_WITH_OPENMP
  expected.insert({"search/omp/omp", "gauss/omp/omp", "gauss/omp-blocked/omp", "rqa/exact-omp/omp", "rqa/seed-omp/omp",
                   "rqa/motif-omp/omp"});
#endif
#ifdef EMA_WITH_CUDA
  expected.insert({"search/cuda-seed/cuda", "search/cuda/cuda", "search/thrust-find/cuda", "search/cuda-multi/multi-gpu"});
  expected.insert({"gauss/cuda-kv1/cuda", "gauss/cuda-kv2/cuda", "gauss/cuda-goncalves/cuda", "gauss/cuda/cuda",
                   "gauss/cusolver/cuda"});
  expected.insert({"rqa/exact-cuda/cuda", "rqa/seed-cuda/cuda", "rqa/motif-cuda/cuda"});
#endif
  EXPECT_EQ(registered(), expected);
  ASSERT_EQ(problems().size(), 3u);
  EXPECT_STREQ(problems()[0]->name, "gauss");
  EXPECT_STREQ(problems()[1]->name, "rqa");
  EXPECT_STREQ(problems()[2]->name, "search");
}

TEST(Registry, EveryVariantNamesItsProblemProvenanceAndDescription) {
  for (const auto* v : variants()) {
    EXPECT_NO_THROW(find_problem(v->problem)) << v->name;
    EXPECT_GT(std::string_view(v->description).size(), 10u) << v->name;
    EXPECT_GT(std::string_view(v->provenance).size(), 3u) << v->name;
    EXPECT_NE(v->run, nullptr) << v->name;
  }
}

TEST(Registry, VariantNamesAreUniqueWithinAProblem) {
  std::set<std::string> seen;
  for (const auto* v : variants()) EXPECT_TRUE(seen.insert(std::string(v->problem) + "/" + v->name).second) << v->name;
}

TEST(Registry, UnknownNamesListTheValidOnes) {
  try {
    find_problem("serch");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("valid problems: gauss, rqa, search"), std::string::npos) << e.what();
  }
  try {
    find_variant("search", "gpu");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("valid variants: seq"), std::string::npos) << e.what();
  }
}

TEST(Registry, GpuVariantsAreUnavailableWithoutADevice) {
  for (const auto* v : variants()) {
    auto a = available(*v);
    if (!uses_gpu(v->backend)) {
      EXPECT_TRUE(a.ok) << v->name;
    } else if (!a.ok) {
      EXPECT_NE(a.reason.find("CUDA"), std::string::npos) << a.reason;
    }
  }
}

}  // namespace
}  // namespace ema
