// The registry holds exactly the problems and variants this build configuration compiles.
#include <gtest/gtest.h>
#include <set>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "measure/gpu.hpp"

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

TEST(Registry, EveryVariantNamesItsProblemAlgorithmRoleProvenanceAndDescription) {
  for (const auto* v : variants()) {
    EXPECT_NO_THROW(find_problem(v->problem)) << v->name;
    ASSERT_NE(v->algorithm, nullptr) << v->name;
    EXPECT_FALSE(std::string_view(v->algorithm).empty()) << v->name;
    EXPECT_NE(v->role, variant_role::unset) << v->name;
    EXPECT_GT(std::string_view(v->description).size(), 10u) << v->name;
    EXPECT_GT(std::string_view(v->provenance).size(), 3u) << v->name;
    EXPECT_NE(v->run, nullptr) << v->name;
  }
}

TEST(Registry, AlgorithmsAndRolesAreFieldsNotNames) {
  EXPECT_STREQ(find_variant("rqa", "exact-cuda").algorithm, "exact");
  EXPECT_STREQ(find_variant("rqa", "seed-seq").algorithm, "microstates");
  EXPECT_EQ(find_variant("rqa", "seed-seq").role, variant_role::source);
  EXPECT_STREQ(find_variant("search", "seq").algorithm, "search");  // one algorithm: the problem's name
  EXPECT_EQ(find_variant("gauss", "seq").role, variant_role::source);
  EXPECT_STREQ(find_variant("gauss", "omp-blocked").algorithm, "lu");
  EXPECT_STREQ(find_variant("gauss", "seq").algorithm, "elimination");
  for (const auto* p : problems()) {
    // The reference variant exists and runs everywhere.
    const auto* ref = lookup_variant(p->name, p->reference_variant);
    ASSERT_NE(ref, nullptr) << p->name;
    EXPECT_EQ(ref->backend, backend::seq) << p->name;
  }
}

TEST(Registry, SpeedupBaselineIsTheSameAlgorithmsVariantElseTheReferenceAlgorithms) {
  auto all = [](std::string_view) { return true; };
  EXPECT_EQ(speedup_baseline("rqa", "exact-cuda", backend::seq, all), "exact-seq");
  EXPECT_EQ(speedup_baseline("rqa", "motif-cuda", backend::omp, all), "motif-omp");
  EXPECT_EQ(speedup_baseline("rqa", "seed-omp", backend::seq, all), "seed-seq");
  EXPECT_EQ(speedup_baseline("gauss", "cusolver", backend::seq, all), "seq");           // no LU on one thread
  EXPECT_EQ(speedup_baseline("gauss", "cusolver", backend::omp, all), "omp-blocked");  // LU in OpenMP
  EXPECT_EQ(speedup_baseline("gauss", "cuda-kv2", backend::omp, all), "omp");
  EXPECT_EQ(speedup_baseline("search", "thrust-find", backend::seq, all), "seq");
  auto only = [](std::string_view name) { return [name](std::string_view v) { return v == name; }; };
  EXPECT_EQ(speedup_baseline("rqa", "exact-cuda", backend::seq, only("seed-seq")), "");  // never another algorithm's own
  EXPECT_EQ(speedup_baseline("rqa", "seed-cuda", backend::seq, only("exact-seq")), "exact-seq");
  EXPECT_EQ(speedup_baseline("rqa", "their-program", backend::seq, only("seq")), "seq");
  EXPECT_EQ(speedup_baseline("rqa", "their-program", backend::seq, only("exact-seq")), "");
}

// A registration is checked while it is compiled: a variant without a role, or one that names its
// problem itself, does not build (detail::require throws during constant evaluation).
struct demo_traits {
  static constexpr const char* name = "demo";
  using input = int;
  using output = int;
  static input generate(const point_request&) { return 0; }
  static output reference(const input& in) { return in; }
  static outcome check(const input&, const output&, const output&) { return {}; }
};
int demo_run(const int& in, run_context&) { return in; }
constexpr variant_desc demo = problem_kit<demo_traits>::variant<&demo_run>(
    {.name = "quick-cuda", .algorithm = "quick", .backend = backend::cuda, .role = variant_role::ours,
     .description = "a demonstration", .provenance = "tests"});
static_assert(std::string_view(demo.problem) == "demo" && std::string_view(demo.algorithm) == "quick" && demo.run != nullptr);
constexpr variant_desc demo_default = problem_kit<demo_traits>::variant<&demo_run>(
    {.name = "seq", .backend = backend::seq, .role = variant_role::source, .description = "d", .provenance = "p"});
static_assert(std::string_view(demo_default.algorithm) == "demo");

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

TEST(Registry, GpuVariantsRunExactlyWhereADeviceIs) {
  const bool device = gpu::device_count() > 0;
  for (const auto* v : variants()) {
    auto a = available(v->backend);
    if (!uses_gpu(v->backend) || device) {
      EXPECT_TRUE(a.ok) << v->name << ": " << a.reason;
    } else {
      EXPECT_FALSE(a.ok) << v->name;
      EXPECT_NE(a.reason.find("CUDA"), std::string::npos) << a.reason;
    }
  }
}

}  // namespace
}  // namespace ema
