#include <gtest/gtest.h>
#include <set>

#include "core/errors.hpp"
#include "core/registry.hpp"
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
  const bool gpu_runs = available(find_variant("fault", "gpu")).ok;
  EXPECT_EQ(names.count("gpu"), gpu_runs ? 1u : 0u);
  if (!gpu_runs) ASSERT_FALSE(p.notes.empty());
  r.variants = {"gpu"};
  EXPECT_EQ(make_plan(r).points.size(), 1u);  // named: kept, and recorded as skipped when it runs
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

}  // namespace
}  // namespace ema
