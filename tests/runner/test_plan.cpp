#include <gtest/gtest.h>

#include "core/axes.hpp"
#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/series.hpp"
#include "measure/gpu.hpp"
#include "measure/machine.hpp"
#include "runner/plan.hpp"

namespace ema {
namespace {

std::string usage_of(const plan_request& r) {
  try {
    make_plan(r);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

TEST(Plan, PointsRunSizeBySizeWithOneSeedPerSize) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok", "wrong"};
  r.sizes = "4,16";
  auto p = make_plan(r);
  ASSERT_EQ(p.points.size(), 4u);
  EXPECT_EQ(p.points[0].n, 4u);
  EXPECT_EQ(p.points[1].n, 4u);
  EXPECT_EQ(p.points[2].n, 16u);
  EXPECT_EQ(p.points[0].seed, p.points[1].seed);  // every variant sees the same input
  EXPECT_NE(p.points[0].seed, p.points[2].seed);
  for (std::size_t i = 0; i < p.points.size(); ++i) EXPECT_EQ(p.points[i].ordinal, static_cast<int>(i));
}

// A tuning parameter or a launch setting changes how a variant runs, not its input: every value
// of such an axis gets the seed of the variants that do not read it (a bfs root set, a stencil's
// field); a parameter that shapes the input (`mode`) gets its own.
TEST(Plan, TuningAndLaunchAxesKeepTheInput) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"launched", "ok"};
  r.sizes = "4";
  r.params = {"mode=a,b", "k=1..3", "launch.threads=32..128*2"};
  std::map<std::string, std::set<std::uint64_t>> seeds;  // by mode
  std::size_t points = 0;
  for (const auto& pt : make_plan(r).points) {
    seeds[pt.params.text("mode")].insert(pt.seed);
    ++points;
  }
  EXPECT_EQ(points, 2u * (3 * 3 + 1));
  ASSERT_EQ(seeds.size(), 2u);
  EXPECT_EQ(seeds["a"].size(), 1u);
  EXPECT_EQ(seeds["b"].size(), 1u);
  EXPECT_NE(*seeds["a"].begin(), *seeds["b"].begin());
}

TEST(Plan, SeedsFollowTheBaseSeed) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok"};
  r.sizes = "4";
  auto a = make_plan(r);
  r.seed = 2;
  auto b = make_plan(r);
  EXPECT_NE(a.points[0].seed, b.points[0].seed);
  EXPECT_EQ(a.points[0].seed, make_plan([] {
                                plan_request q;
                                q.problems = {"fault"};
                                q.variants = {"ok"};
                                q.sizes = "4";
                                return q;
                              }())
                                  .points[0]
                                  .seed);
}

TEST(Plan, UnavailableVariantsAreLeftOutOnlyWhenNotNamed) {
  plan_request r;
  r.problems = {"fault"};
  r.sizes = "4";
  auto p = make_plan(r);
  std::set<std::string> names;
  for (const auto& pt : p.points) names.insert(pt.variant);
  const bool gpu_runs = available(find_variant("fault", "gpu").backend).ok;
  EXPECT_EQ(names.count("gpu"), gpu_runs ? 1u : 0u);
  if (!gpu_runs) {  // one line for every variant so left out, however many
    ASSERT_EQ(std::count_if(p.notes.begin(), p.notes.end(), [](const std::string& n) { return n.find("left out") != std::string::npos; }), 1);
    EXPECT_NE(std::find_if(p.notes.begin(), p.notes.end(),
                           [](const std::string& n) { return n.starts_with("1 variant left out (") && n.ends_with("): fault gpu"); }),
              p.notes.end());
  }
  r.variants = {"gpu"};
  EXPECT_EQ(make_plan(r).points.size(), 1u);  // named: kept, and recorded as skipped when it runs
}

// Without --sizes a GPU variant runs its problem's GPU plan (problem_desc::default_sizes_gpu), so
// at the sizes beyond the CPU plan only it runs; --sizes gives every variant the same sizes.
TEST(Plan, AGpuVariantTakesTheProblemsGpuPlanWithoutSizes) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok", "gpu"};  // named: kept where no GPU can run it
  r.order = size_order::ascending;
  std::vector<std::pair<std::string, std::uint64_t>> got;
  for (const auto& pt : make_plan(r).points) got.emplace_back(pt.variant, pt.n);
  const std::vector<std::pair<std::string, std::uint64_t>> want = {{"ok", 8}, {"gpu", 8}, {"gpu", 32}};
  EXPECT_EQ(got, want);
  r.sizes = "8,16";
  got.clear();
  for (const auto& pt : make_plan(r).points) got.emplace_back(pt.variant, pt.n);
  const std::vector<std::pair<std::string, std::uint64_t>> same = {{"ok", 8}, {"gpu", 8}, {"ok", 16}, {"gpu", 16}};
  EXPECT_EQ(got, same);
  EXPECT_STREQ(default_plan(find_problem("fault"), find_variant("fault", "gpu")), "8,32");
  EXPECT_STREQ(default_plan(find_problem("fault"), find_variant("fault", "ok")), "8");
}

// A variant's former name (registry.hpp, renamed_variants) on the command line runs it under its
// name now, with a note; naming it both ways is naming it twice.
TEST(Plan, AFormerVariantNameRunsTheVariantNamedNowWithANote) {
  plan_request r;
  r.problems = {"bfs"};
  r.variants = {"omp-seed"};
  r.sizes = "1024";
  const auto p = make_plan(r);
  ASSERT_FALSE(p.points.empty());
  for (const auto& pt : p.points) EXPECT_EQ(pt.variant, "omp-listing");
  EXPECT_TRUE(
      std::any_of(p.notes.begin(), p.notes.end(), [](const std::string& n) { return n == "bfs omp-seed: now named omp-listing (read as it)"; }));
  r.variants = {"omp-seed", "omp-listing"};
  EXPECT_THROW(make_plan(r), usage_error);
}

// A tuning parameter none of the chosen variants reads is refused by name (issue 31): it would
// change nothing.
TEST(Plan, ATuningParameterNoChosenVariantReadsIsRefused) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok"};
  r.params = {"k=3"};
  r.sizes = "4";
  try {
    make_plan(r);
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("--param k=3: no variant of fault chosen reads k (it tunes launched"), std::string::npos) << e.what();
  }
  r.variants = {"ok", "launched"};
  EXPECT_NO_THROW(make_plan(r));
}

// The processor axis of OpenMP variants (issue 32, item 1): every OpenMP variant takes
// launch.omp_threads, up to the CPUs this process may run on; the others run once.
TEST(Plan, EveryOpenMpVariantTakesTheThreadsAxisUpToTheAllowedCpus) {
  plan_request r;
  r.problems = {"search"};
  r.variants = {"seq", "omp"};
  r.sizes = "1024";
  const int cpus = allowed_cpus();
  ASSERT_GT(cpus, 0);
  r.params = {fmt::format("launch.omp_threads=1..{}", cpus)};
  auto p = make_plan(r);
  std::multiset<std::string> threads;
  for (const auto& pt : p.points) {
    const auto it = pt.params.values().find("launch.omp_threads");
    if (pt.variant == "seq") EXPECT_EQ(it, pt.params.values().end());
    if (pt.variant == "omp" && it != pt.params.values().end()) threads.insert(it->second);
  }
  EXPECT_EQ(threads.size(), static_cast<std::size_t>(cpus));  // 1, 2, ..., cpus
  EXPECT_EQ(threads.count("1"), 1u);
  auto refused = [&](std::vector<std::string> params, const std::string& says) {
    r.params = std::move(params);
    const auto why = usage_of(r);
    EXPECT_NE(why.find(says), std::string::npos) << r.params[0] << ": " << (why.empty() ? "accepted" : why);
  };
  refused({"launch.omp_threads=0"}, fmt::format("launch.omp_threads of search omp must be an integer in [1, {}]", cpus));
  refused({fmt::format("launch.omp_threads={}", cpus + 1)}, "the CPUs this process may run on");
  refused({"launch.omp_threads=1000000"}, "the CPUs this process may run on");
  refused({"launch.omp_threads=two"}, "must be an integer");
  r.variants = {"seq"};
  refused({"launch.omp_threads=1"}, "is a launch setting of none of the chosen variants of search (seq)");
}

TEST(Plan, LaunchOverridesAreCheckedAndGoOnlyToTheVariantsThatDeclareThem) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"launched", "ok"};
  r.sizes = "4";
  r.params = {"launch.threads=128"};
  auto p = make_plan(r);
  for (const auto& pt : p.points) EXPECT_EQ(pt.params.values().count("launch.threads"), pt.variant == "launched" ? 1u : 0u) << pt.variant;
  auto refused = [&](std::vector<std::string> params, const char* says) {
    r.params = std::move(params);
    const auto why = usage_of(r);
    EXPECT_NE(why.find(says), std::string::npos) << r.params[0] << ": " << (why.empty() ? "accepted" : why);
  };
  refused({"launch.threads=100"}, "a multiple of 32");
  refused({"launch.threads=2048"}, "[32, 1024]");
  refused({"launch.threads=x"}, "must be an integer");
  refused({"launch.blocks=4"}, "theirs: launch.threads");
  refused({"launch.threads=64,64"}, "given the value '64' twice");
  refused({"launch.threads=64", "launch.threads=64"}, "given the value '64' twice");
  // What the variant's own check refuses (variant_desc::launch_refuses), for a size of the plan or a
  // calibration's first: the command's error, naming the variant and the size.
  r.sizes = "4,64,40000";
  refused({"launch.threads=32..64*2"}, "fault launched at n = 40000: launch.threads = 32 is too few for n");
  r.sizes.reset();
  r.budget = 10;
  r.start = 40000;
  refused({"launch.threads=32"}, "fault launched at n = 40000");
  r.params = {"launch.threads=64"};
  EXPECT_EQ(usage_of(r), "");
  r.budget.reset();
  r.start.reset();
  r.sizes = "4";
  r.variants = {"ok"};
  refused({"launch.threads=64"}, "they have none");
}

// `--param k=a,b` and `--param k=1..16` (core/axes.hpp): the plan is the product of the sizes and
// every axis; a launch axis multiplies only the variants that declare the setting.
TEST(Plan, ParameterAxesMultiplyThePlan) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"launched", "ok"};
  r.sizes = "4,8";
  r.params = {"mode=a,b", "launch.threads=32..128*2"};  // 32, 64, 128
  const auto p = make_plan(r);
  std::map<std::string, std::set<std::string>> sets;
  for (const auto& pt : p.points) sets[pt.variant].insert(pt.params.canonical_json());
  EXPECT_EQ(sets["launched"].size(), 6u);  // 2 modes × 3 thread counts
  EXPECT_EQ(sets["ok"].size(), 2u);        // the modes only: it has no launch setting
  EXPECT_EQ(p.points.size(), 2u * (6 + 2));
  // Every variant at one setting side by side: sizes outermost, then the sets.
  EXPECT_EQ(p.points[0].n, 4u);
  EXPECT_EQ(p.points[0].variant, "launched");
  EXPECT_EQ(p.points[1].variant, "ok");
  EXPECT_EQ(p.points.back().n, 8u);
  // A tuning parameter multiplies only the variants that read it.
  r.params = {"k=1..4"};
  sets.clear();
  for (const auto& pt : make_plan(r).points) sets[pt.variant].insert(pt.params.canonical_json());
  EXPECT_EQ(sets["launched"].size(), 4u);  // k = 1, 2, 3, 4
  EXPECT_EQ(sets["ok"].size(), 1u);        // k stays 1
  // A key given twice is an axis of both values.
  r.params = {"mode=a", "mode=b"};
  EXPECT_EQ(make_plan(r).points.size(), 2u * 2 * 2);
  r.params = {"mode=a,,b"};
  EXPECT_NE(usage_of(r).find("an empty value in the list"), std::string::npos);
  r.params = {"mode=a,c"};
  EXPECT_NE(usage_of(r).find("'c'"), std::string::npos) << usage_of(r);  // each value checked as the parameter's kind
  // Calibration: one track per variant and parameter set.
  r.sizes.reset();
  r.budget = 10;
  r.params = {"mode=a,b", "launch.threads=64,128"};
  EXPECT_EQ(make_plan(r).calibrated->tracks.size(), 4u + 2u);
}

TEST(Plan, AxesAreSplitOnlyWhereValuesCannotHoldCommas) {
  const auto text = [](std::string_view) { return false; };
  const auto number = [](std::string_view) { return true; };
  auto axes = group_assignments({"column=a,b"}, text, text);
  ASSERT_EQ(axes.size(), 1u);
  EXPECT_EQ(axes[0].values, std::vector<std::string>{"a,b"});
  axes = group_assignments({"k=1..16*2", "k=3"}, number, number);
  EXPECT_EQ(axes[0].values, (std::vector<std::string>{"1", "2", "4", "8", "16", "3"}));
  // An integer range counts by one unless it says otherwise (issue 31, item 5); powers double.
  axes = group_assignments({"k=1..4"}, number, number);
  EXPECT_EQ(axes[0].values, (std::vector<std::string>{"1", "2", "3", "4"}));
  axes = group_assignments({"k=2^0..2^2"}, number, number);
  EXPECT_EQ(axes[0].values, (std::vector<std::string>{"1", "2", "4"}));
  axes = group_assignments({"k=1..100"}, number, number);
  EXPECT_EQ(axes[0].values.size(), 100u);
  try {
    group_assignments({"k=32..1024"}, number, number);
    ADD_FAILURE() << "a range counting by one to 993 values was taken";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("'32..1024*2' to double"), std::string::npos) << e.what();
  }
  EXPECT_EQ(group_assignments({"k=32..1024*2"}, number, number)[0].values.size(), 6u);
  try {
    group_assignments({"k=4..1"}, number, number);
    ADD_FAILURE() << "an empty range was taken";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("range '4..1' is empty"), std::string::npos) << e.what();  // as written, no step added
  }
  axes = group_assignments({"k=1..4+1,10"}, number, number);
  EXPECT_EQ(axes[0].values, (std::vector<std::string>{"1", "2", "3", "4", "10"}));
  EXPECT_THROW(group_assignments({"k"}, number, number), usage_error);
  EXPECT_THROW(combinations({{"a", {"1", "2", "3"}}, {"b", {"1", "2", "3"}}}, 8), usage_error);
  EXPECT_EQ(combinations({{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}}, 8).size(), 6u);
  EXPECT_EQ(combinations({}, 8).size(), 1u);  // no axis: one empty combination
}

TEST(Plan, UsageErrors) {
  plan_request r;
  EXPECT_NE(usage_of(r).find("name a problem or give --all"), std::string::npos);
  r.problems = {"nope"};
  EXPECT_NE(usage_of(r).find("unknown problem 'nope'"), std::string::npos);
  r.problems = {"fault"};
  r.variants = {"nope"};
  EXPECT_NE(usage_of(r).find("valid variants:"), std::string::npos);
  r.variants = {};
  r.params = {"size=3"};
  EXPECT_NE(usage_of(r).find("valid parameters: mode"), std::string::npos);
  r.params = {};
  r.sizes = "4..2";
  EXPECT_NE(usage_of(r).find("start is larger"), std::string::npos);
}

TEST(Plan, AllWithParametersOfOneProblem) {
  plan_request r;
  r.all = true;
  r.sizes = "4";
  r.params = {"mode=b"};
  auto p = make_plan(r);
  for (const auto& pt : p.points)
    if (pt.problem == "fault") EXPECT_EQ(pt.params.text("mode"), "b");
  r.params = {"nosuch=1"};
  EXPECT_NE(usage_of(r).find("belongs to none"), std::string::npos);
}

TEST(Plan, JsonRoundTrip) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok", "wrong"};
  r.sizes = "4,8";
  r.params = {"mode=b"};
  auto p = make_plan(r);
  p.reps.fixed = 7;
  p.timeout = 12;
  p.energy.enabled = false;
  auto q = plan::from_json(nlohmann::json::parse(p.to_json().dump()));
  ASSERT_EQ(q.points.size(), p.points.size());
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    EXPECT_EQ(q.points[i].variant, p.points[i].variant);
    EXPECT_EQ(q.points[i].n, p.points[i].n);
    EXPECT_EQ(q.points[i].seed, p.points[i].seed);
    EXPECT_EQ(q.points[i].params, p.points[i].params);
  }
  EXPECT_EQ(q.reps.fixed, 7);
  EXPECT_EQ(q.timeout, 12);
  EXPECT_FALSE(q.energy.enabled);
}

TEST(Plan, InstancesDrawTheirOwnInputs) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok", "wrong"};
  r.sizes = "4";
  const auto one = make_plan(r);
  r.instances = 3;
  auto p = make_plan(r);
  ASSERT_EQ(p.points.size(), 6u);
  std::set<std::uint64_t> seeds;
  for (const auto& pt : p.points) seeds.insert(pt.seed);
  EXPECT_EQ(seeds.size(), 3u);                      // both variants see each of 3 inputs
  EXPECT_EQ(p.points[0].seed, one.points[0].seed);  // instance 0 keeps the seed of a plain sweep
  EXPECT_EQ(p.points[0].instance, 0);
  EXPECT_EQ(p.points[2].instance, 2);
  EXPECT_EQ(p.points[2].variant, "ok");
  r.instances = 0;
  EXPECT_NE(usage_of(r).find("--instances must be between 1 and 10000"), std::string::npos);
}

TEST(Plan, BudgetMakesTracksInsteadOfPoints) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok", "busy"};
  r.budget = 30;
  r.max_size = 4096;
  auto p = make_plan(r);
  EXPECT_TRUE(p.points.empty());
  ASSERT_TRUE(p.calibrated);
  EXPECT_EQ(p.calibrated->budget, 30);
  ASSERT_EQ(p.calibrated->tracks.size(), 2u);
  EXPECT_EQ(p.calibrated->tracks[0].start, 8u);  // the problem's smallest default size
  EXPECT_EQ(p.calibrated->tracks[1].max_size, 4096u);
  r.sizes = "4";
  EXPECT_NE(usage_of(r).find("either --budget"), std::string::npos);
  r.sizes.reset();
  r.budget.reset();
  EXPECT_NE(usage_of(r).find("give --budget"), std::string::npos);
}

TEST(Plan, ASweepOfTheSourcesLogisticOrbitEndsWhereTheOrbitCollapses) {
  // rqa's `system=logistic` (r = 4 from 0.4 in double) reaches the fixed point 0 at step 15489530:
  // a calibrated sweep grows no track past it (an H200 sweep ran 2^24 and 2^25, 5 points failed,
  // exit 1), and a fixed plan past it is refused before anything runs.
  ASSERT_EQ(logistic_collapse_step(), std::optional<std::uint64_t>(15489530));
  plan_request r;
  r.problems = {"rqa"};
  r.variants = {"exact-seq"};
  r.budget = 30;
  auto p = make_plan(r);
  ASSERT_EQ(p.calibrated->tracks.size(), 1u);
  EXPECT_EQ(p.calibrated->tracks[0].max_size, 15489530u);
  r.max_size = 1 << 20;  // a smaller --max-size stands
  EXPECT_EQ(make_plan(r).calibrated->tracks[0].max_size, 1u << 20);
  r.max_size.reset();
  r.params = {"system=logistic-exact"};  // no end: the problem's own limit
  EXPECT_EQ(make_plan(r).calibrated->tracks[0].max_size, (std::uint64_t{1} << 32) - 1);
  r.params.clear();
  r.start = 1 << 24;
  EXPECT_NE(usage_of(r).find("past the end of system=logistic's orbit"), std::string::npos) << usage_of(r);
  r.start.reset();
  r.budget.reset();
  r.sizes = "2^20,2^24";
  EXPECT_NE(usage_of(r).find("n = 16777216 is past the end of system=logistic's orbit"), std::string::npos) << usage_of(r);
  r.sizes = "15489530";
  EXPECT_EQ(usage_of(r), "");
}

TEST(Plan, CalibrationAndExternalProgramsSurviveTheRoundTrip) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok"};
  r.budget = 30;
  r.start = 16;
  r.instances = 2;
  auto p = make_plan(r);
  p.calibrated->tracks[0].stopped = "reached n = 2^62";
  p.add("fault", "ok", 16, p.calibrated->tracks[0].params, "grow");
  p.external = external_program{"gen {n} > {input}", {{"a", "prog {input}"}}, "/tmp/cache", 1e9};
  p.input_cache_dir = "/tmp/graphs";
  p.input_cache_cap = 5e8;
  auto q = plan::from_json(nlohmann::json::parse(p.to_json().dump()));
  EXPECT_EQ(q.input_cache_dir, "/tmp/graphs");
  EXPECT_EQ(q.input_cache_cap, 5e8);
  ASSERT_TRUE(q.calibrated);
  EXPECT_EQ(q.calibrated->budget, 30);
  EXPECT_EQ(q.calibrated->tracks[0].start, 16u);
  EXPECT_EQ(q.calibrated->tracks[0].stopped, "reached n = 2^62");
  EXPECT_EQ(q.instances, 2);
  ASSERT_EQ(q.points.size(), 2u);
  EXPECT_EQ(q.points[1].phase, "grow");
  EXPECT_EQ(q.points[1].instance, 1);
  EXPECT_EQ(q.points[1].ordinal, 1);
  ASSERT_TRUE(q.external);
  EXPECT_EQ(q.external->runs[0].second, "prog {input}");
  EXPECT_EQ(q.external->cache_cap, 1e9);
}

TEST(Plan, RepetitionPolicy) {
  repetition_policy p;
  p.min_time = 0;
  EXPECT_FALSE(p.satisfied({1, 1, 1, 1}, 10));      // fewer than min_reps
  EXPECT_TRUE(p.satisfied({1, 1, 1, 1, 1}, 0.5));   // steady: the median's error is 0
  EXPECT_FALSE(p.satisfied({1, 2, 3, 4, 5}, 0.5));  // noisy, time left
  EXPECT_TRUE(p.satisfied({1, 2, 3, 4, 5}, 1.5));   // noisy, out of time
  p.fixed = 2;
  EXPECT_TRUE(p.satisfied({1, 2}, 0));
}

}  // namespace
}  // namespace ema

namespace ema {
namespace {

// Weak scaling (`ema run --weak`, issue 32 item 3): each processor count at the size with p/p0
// times the work, by the problem's work model; the variants without a count at every size reached.
TEST(Plan, WeakScalingGrowsEachCountsSizeByTheWork) {
  const auto& search = find_problem("search");
  const auto& gauss = find_problem("gauss");
  const auto& stencil = find_problem("stencil");
  auto defaults = [](const problem_desc& p) { return param_set::resolve(p.name, p.params, {}); };
  EXPECT_EQ(weak_size(search, defaults(search), 1000, 1), 1000u);
  EXPECT_EQ(weak_size(search, defaults(search), 1000, 16), 16000u);  // a scan's work is n
  const auto g = weak_size(gauss, defaults(gauss), 1000, 8);         // n³ (and 2n²): about twice n
  EXPECT_NEAR(static_cast<double>(g), 2000, 3) << g;
  const auto st = weak_size(stencil, defaults(stencil), 1024, 4);  // n² cells a step
  EXPECT_EQ(st, 2048u);
  EXPECT_THROW(weak_size(search, defaults(search), 1000, 0.5), usage_error);
  EXPECT_THROW(weak_size(search, defaults(search), std::uint64_t{1} << 62, 64), usage_error);  // past the largest size

  const int cpus = allowed_cpus();
  if (cpus < 2) GTEST_SKIP() << "one CPU: no second thread count";
  plan_request r;
  r.problems = {"search"};
  r.variants = {"seq", "omp"};
  r.weak = "1000";
  r.params = {"launch.omp_threads=1,2"};
  const auto p = make_plan(r);
  std::multiset<std::pair<std::string, std::uint64_t>> seen;
  for (const auto& pt : p.points) {
    const auto it = pt.params.values().find("launch.omp_threads");
    if (pt.variant == "omp") EXPECT_EQ(pt.n, it->second == "1" ? 1000u : 2000u) << it->second;
    seen.insert({pt.variant, pt.n});
  }
  EXPECT_EQ(seen, (std::multiset<std::pair<std::string, std::uint64_t>>{{"omp", 1000}, {"omp", 2000}, {"seq", 1000}, {"seq", 2000}}));
  EXPECT_EQ(p.weak, std::vector<std::uint64_t>{1000});
  EXPECT_EQ(plan::from_json(p.to_json()).weak, std::vector<std::uint64_t>{1000});
  // Refused: with --sizes, with a budget, and where no chosen variant has a processor axis.
  auto refused = [&](plan_request q, const std::string& says) {
    const auto why = usage_of(q);
    EXPECT_NE(why.find(says), std::string::npos) << (why.empty() ? "accepted" : why);
  };
  auto q = r;
  q.sizes = "1000";
  refused(q, "give either --weak");
  q = r;
  q.budget = 10;
  refused(q, "give no --budget with it");
  q = r;
  q.params = {};
  refused(q, "no chosen variant of search has a processor axis");
  q = r;
  q.weak = "0..x";
  EXPECT_FALSE(usage_of(q).empty());
  q.weak = "0";
  refused(q, "--weak 0: a weak-scaling run grows each processor's share from n0, which must be at least 1");
}

}  // namespace
}  // namespace ema
