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
  std::set<std::string> expected = {"search/seq/seq",          "gauss/seq/seq",     "rqa/exact-seq/seq",
                                    "rqa/microstates-seq/seq", "rqa/motif-seq/seq", "stencil/seq/seq",
                                    "sort/std-sort/seq",       "bfs/seq/seq",       "sssp/seq/seq"};
#ifdef EMA_WITH_OPENMP
  expected.insert({"search/omp/omp", "gauss/omp/omp", "gauss/omp-blocked/omp", "rqa/exact-omp/omp", "rqa/microstates-omp/omp", "rqa/motif-omp/omp",
                   "stencil/omp/omp", "stencil/omp-tb/omp", "sort/gnu-parallel/omp", "sort/merge-omp/omp", "sort/quick-omp/omp", "sort/radix-omp/omp",
                   "bfs/omp-listing/omp", "bfs/omp/omp", "sssp/omp-listing/omp", "sssp/omp/omp"});
#endif
#ifdef EMA_WITH_CUDA
  expected.insert({"search/cuda-listing/cuda", "search/cuda/cuda", "search/thrust-find/cuda", "search/cuda-multi/multi-gpu"});
  expected.insert({"gauss/cuda-kv1/cuda", "gauss/cuda-kv2/cuda", "gauss/cuda-goncalves/cuda", "gauss/cuda/cuda", "gauss/cusolver/cuda"});
  expected.insert({"rqa/exact-cuda/cuda", "rqa/microstates-cuda/cuda", "rqa/motif-cuda/cuda"});
  expected.insert({"stencil/cuda-naive/cuda", "stencil/cuda-listing/cuda", "stencil/cuda/cuda"});
  expected.insert({"sort/quick-cuda/cuda", "sort/merge-cuda/cuda", "sort/quick-cdp/cuda", "sort/merge-cdp/cuda", "sort/merge-path/cuda",
                   "sort/quick-sample/cuda", "sort/cub-radix/cuda", "sort/cub-merge/cuda", "sort/thrust-sort/cuda"});
  expected.insert({"bfs/cuda-listing/cuda", "bfs/cuda/cuda", "sssp/cuda-listing/cuda", "sssp/cuda/cuda"});
#endif
  EXPECT_EQ(registered(), expected);
  ASSERT_EQ(problems().size(), 7u);
  EXPECT_STREQ(problems()[0]->name, "bfs");
  EXPECT_STREQ(problems()[1]->name, "gauss");
  EXPECT_STREQ(problems()[2]->name, "rqa");
  EXPECT_STREQ(problems()[3]->name, "search");
  EXPECT_STREQ(problems()[4]->name, "sort");
  EXPECT_STREQ(problems()[5]->name, "sssp");
  EXPECT_STREQ(problems()[6]->name, "stencil");
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

// Issue 30, item 4: a hand-written CUDA variant's geometry is a launch struct (core/launch.hpp),
// recorded with every point and overridable, or the variant says why its source dictates it.
// Library variants (role anchor) launch nothing of their own.
TEST(Registry, EveryHandWrittenGpuVariantDeclaresItsLaunchSettingsOrWhyItHasNone) {
  int gpu = 0;
  for (const auto* v : variants()) {
    if (!uses_gpu(v->backend) || v->role == variant_role::anchor) continue;
    ++gpu;
    const bool fixed = v->launch_fixed && std::string_view(v->launch_fixed).size() > 10;
    EXPECT_TRUE(!v->launch.empty() || fixed) << v->problem << " " << v->name << " declares no launch settings and no reason";
    EXPECT_FALSE(!v->launch.empty() && v->launch_fixed) << v->problem << " " << v->name << ": settings and a reason for none";
    for (const auto& f : v->launch) {
      EXPECT_GT(std::string_view(f.help).size(), 10u) << v->name << " launch." << f.name;
      EXPECT_LE(f.min, f.max) << v->name << " launch." << f.name;
    }
  }
#ifdef EMA_WITH_CUDA
  EXPECT_EQ(gpu, 23);  // every CUDA variant above but the five libraries
#else
  EXPECT_EQ(gpu, 0);
#endif
}

TEST(Registry, AlgorithmsAndRolesAreFieldsNotNames) {
  // Variants every build has (seq); the others' fields are checked wherever they are built.
  EXPECT_STREQ(find_variant("rqa", "exact-seq").algorithm, "exact");
  EXPECT_STREQ(find_variant("rqa", "microstates-seq").algorithm, "microstates");
  EXPECT_EQ(find_variant("rqa", "microstates-seq").role, variant_role::source);
  EXPECT_STREQ(find_variant("search", "seq").algorithm, "search");  // one algorithm: the problem's name
  EXPECT_EQ(find_variant("gauss", "seq").role, variant_role::source);
  EXPECT_STREQ(find_variant("gauss", "seq").algorithm, "elimination");
  if (const auto* lu = lookup_variant("gauss", "omp-blocked")) EXPECT_STREQ(lu->algorithm, "lu");
  if (const auto* cusolver = lookup_variant("gauss", "cusolver")) EXPECT_EQ(cusolver->role, variant_role::anchor);
  for (const auto* p : problems()) {
    // The reference variant exists and runs everywhere.
    const auto* ref = lookup_variant(p->name, p->reference_variant);
    ASSERT_NE(ref, nullptr) << p->name;
    EXPECT_EQ(ref->backend, backend::seq) << p->name;
  }
  EXPECT_EQ(reference_algorithm("gauss"), "elimination");
  EXPECT_EQ(reference_algorithm("rqa"), "exact");
  for (auto r : {variant_role::source, variant_role::ours, variant_role::anchor}) EXPECT_EQ(variant_role_from_string(to_string(r)), r);
  EXPECT_EQ(variant_role_from_string("boss"), variant_role::unset);
}

TEST(Registry, SpeedupBaselineIsTheSameAlgorithmsVariantElseTheReferenceAlgorithms) {
  const std::vector<variant_identity> rqa = {{"exact-seq", "exact", backend::seq, variant_role::ours},
                                             {"exact-omp", "exact", backend::omp, variant_role::ours},
                                             {"exact-cuda", "exact", backend::cuda, variant_role::ours},
                                             {"microstates-seq", "microstates", backend::seq, variant_role::source},
                                             {"microstates-cuda", "microstates", backend::cuda, variant_role::source},
                                             {"motif-omp", "motif", backend::omp, variant_role::ours},
                                             {"motif-cuda", "motif", backend::cuda, variant_role::ours}};
  EXPECT_EQ(speedup_baseline("exact-cuda", backend::seq, rqa, "exact"), "exact-seq");
  EXPECT_EQ(speedup_baseline("motif-cuda", backend::omp, rqa, "exact"), "motif-omp");
  EXPECT_EQ(speedup_baseline("microstates-cuda", backend::seq, rqa, "exact"), "microstates-seq");
  EXPECT_EQ(speedup_baseline("motif-cuda", backend::seq, rqa, "exact"), "exact-seq");  // no motif-seq: the reference algorithm's
  EXPECT_EQ(speedup_baseline("microstates-cuda", backend::seq, std::vector<variant_identity>(rqa.begin() + 4, rqa.end()), "exact"), "");
  const std::vector<variant_identity> gauss = {
      {"seq", "elimination", backend::seq, variant_role::source},       {"omp", "elimination", backend::omp, variant_role::ours},
      {"omp-blocked", "lu", backend::omp, variant_role::ours},          {"cuda", "lu", backend::cuda, variant_role::ours},
      {"cuda-kv2", "elimination", backend::cuda, variant_role::source}, {"cusolver", "lu", backend::cuda, variant_role::anchor}};
  EXPECT_EQ(speedup_baseline("cusolver", backend::seq, gauss, "elimination"), "seq");  // no LU on one thread
  EXPECT_EQ(speedup_baseline("cusolver", backend::omp, gauss, "elimination"), "omp-blocked");
  EXPECT_EQ(speedup_baseline("cuda-kv2", backend::omp, gauss, "elimination"), "omp");
  // Where an algorithm has several variants on the back end, the source's is the baseline.
  const std::vector<variant_identity> two = {{"quick-omp-fast", "quick", backend::omp, variant_role::ours},
                                             {"quick-omp", "quick", backend::omp, variant_role::source},
                                             {"quick-cuda", "quick", backend::cuda, variant_role::ours}};
  EXPECT_EQ(speedup_baseline("quick-cuda", backend::omp, two, ""), "quick-omp");
  // A program ema does not know: the variant named after the back end.
  const std::vector<variant_identity> exec = {{"seq", "", backend::seq, variant_role::unset}, {"mine", "", std::nullopt, variant_role::unset}};
  EXPECT_EQ(speedup_baseline("mine", backend::seq, exec, ""), "seq");
  EXPECT_EQ(speedup_baseline("mine", backend::omp, exec, ""), "");
  // This build's identities.
  EXPECT_EQ(identity_of("rqa", "exact-seq").algorithm, "exact");
  EXPECT_EQ(identity_of("rqa", "their-program").algorithm, "");
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
constexpr variant_desc demo = problem_kit<demo_traits>::variant<&demo_run>({.name = "quick-cuda",
                                                                            .algorithm = "quick",
                                                                            .backend = backend::cuda,
                                                                            .role = variant_role::ours,
                                                                            .description = "a demonstration",
                                                                            .provenance = "tests"});
static_assert(std::string_view(demo.problem) == "demo" && std::string_view(demo.algorithm) == "quick");
constexpr variant_desc demo_default = problem_kit<demo_traits>::variant<&demo_run>(
    {.name = "seq", .backend = backend::seq, .role = variant_role::source, .description = "d", .provenance = "p"});
static_assert(std::string_view(demo_default.algorithm) == "demo");

TEST(Registry, TheKitFillsInTheRunWrapper) {
  // (A function pointer's comparison is not a constant expression under the sanitizers.)
  EXPECT_NE(demo.run, nullptr);
  EXPECT_NE(demo_default.run, nullptr);
}

TEST(Registry, VariantNamesAreUniqueWithinAProblem) {
  std::set<std::string> seen;
  for (const auto* v : variants()) EXPECT_TRUE(seen.insert(std::string(v->problem) + "/" + v->name).second) << v->name;
}

// Issue 30, item 7: the sources' listings were named `*-seed`, as the random seed is. A former name
// finds the variant everywhere (databases store it), in every build (a build without CUDA reads an
// old database's GPU variants by their new names too), and no variant has a former name as its own.
TEST(Registry, AFormerVariantNameReadsAsTheVariantNamedNow) {
  EXPECT_EQ(current_variant_name("bfs", "omp-seed"), "omp-listing");
  EXPECT_EQ(current_variant_name("rqa", "seed-seq"), "microstates-seq");
  EXPECT_EQ(current_variant_name("stencil", "cuda-seed"), "cuda-listing");  // whether or not this build has CUDA
  EXPECT_EQ(current_variant_name("sort", "cuda-seed"), "cuda-seed");        // another problem's rename is not this one's
  EXPECT_EQ(current_variant_name("bfs", "omp"), "omp");
  EXPECT_EQ(&find_variant("bfs", "omp-seed"), &find_variant("bfs", "omp-listing"));
  EXPECT_EQ(lookup_variant("rqa", "seed-omp"), lookup_variant("rqa", "microstates-omp"));
  EXPECT_NE(lookup_variant("rqa", "seed-omp"), nullptr);
  for (const auto& r : renamed_variants()) {
    EXPECT_NE(find_problem(r.problem).name, nullptr);
    for (const auto* v : variants_of(r.problem)) EXPECT_STRNE(v->name, r.formerly) << r.problem;
    EXPECT_EQ(std::string_view(r.now).find("seed"), std::string_view::npos) << r.now;
  }
  for (const auto* v : variants())  // "seed" is the random seed's word alone
    EXPECT_EQ(std::string_view(v->name).find("seed"), std::string_view::npos) << v->problem << " " << v->name;
}

TEST(Registry, UnknownNamesListTheValidOnes) {
  try {
    find_problem("serch");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("valid problems: bfs, gauss, rqa, search"), std::string::npos) << e.what();
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
