// Sharding a plan (runner/shard.hpp): `--shard` parsing (also from a Slurm array's environment),
// the split (disjoint, complete, the same on every run, balanced), the digest and the stored shard.
#include <gtest/gtest.h>

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/errors.hpp"
#include "inputs/random.hpp"
#include "runner/plan.hpp"
#include "runner/shard.hpp"

namespace ema {
namespace {

std::string usage_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

plan fault_plan(const std::string& sizes, std::uint64_t seed = 1) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok", "wrong"};
  r.sizes = sizes;
  r.seed = seed;
  return make_plan(r);
}

TEST(Shard, ParsesPartsAndSlurmArrays) {
  const auto none = [](const char*) -> const char* { return nullptr; };
  auto c = parse_shard("1/4", none);
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(c.count, 4);
  std::map<std::string, const char*> slurm = {{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "3"}};
  const auto env = [&](const char* name) -> const char* { return slurm.count(name) ? slurm[name] : nullptr; };
  c = parse_shard("auto", env);
  EXPECT_EQ(c.index, 2);
  EXPECT_EQ(c.count, 3);
  slurm["SLURM_ARRAY_TASK_ID"] = "5";  // a resubmission of task 5 alone: the count is given
  slurm["SLURM_ARRAY_TASK_COUNT"] = "1";
  c = parse_shard("auto/8", env);
  EXPECT_EQ(c.index, 5);
  EXPECT_EQ(c.count, 8);
  EXPECT_NE(usage_of([&] { parse_shard("auto", env); }).find("part 5 is not one of 0 to 0"), std::string::npos);
  EXPECT_NE(usage_of([&] { parse_shard("auto", none); }).find("SLURM_ARRAY_TASK_ID is not set"), std::string::npos);
  EXPECT_NE(usage_of([&] { parse_shard("4/4", none); }).find("part 4 is not one of 0 to 3"), std::string::npos);
  EXPECT_NE(usage_of([&] { parse_shard("1/0", none); }).find("from 1 to 100000"), std::string::npos);
  EXPECT_NE(usage_of([&] { parse_shard("a/2", none); }).find("'a' is not a whole number"), std::string::npos);
  EXPECT_NE(usage_of([&] { parse_shard("-1/2", none); }).find("part -1 is not one of 0 to 1"), std::string::npos);
  EXPECT_NE(usage_of([&] { parse_shard("3", none); }).find("give I/N"), std::string::npos);
}

TEST(Shard, PartsAreDisjointCompleteAndTheSameOnEveryRun) {
  const auto p = fault_plan("4..4096*2");
  ASSERT_EQ(p.points.size(), 22u);
  for (const int count : {1, 2, 3, 7, 22}) {
    std::multiset<int> seen;
    for (int i = 0; i < count; ++i) {
      auto mine = p;
      apply_shard(mine, {i, count});
      EXPECT_FALSE(mine.shard->ordinals.empty()) << "part " << i << " of " << count;
      // Only its own points are kept, each with its ordinal and identity in the whole plan.
      EXPECT_EQ(mine.shard->size, static_cast<int>(p.points.size()));
      ASSERT_EQ(mine.points.size(), mine.shard->ordinals.size());
      for (std::size_t k = 0; k < mine.points.size(); ++k) {
        const auto& pt = mine.points[k];
        EXPECT_EQ(pt.ordinal, mine.shard->ordinals[k]);
        const auto& whole = p.points[static_cast<std::size_t>(pt.ordinal)];
        EXPECT_EQ(std::tie(pt.variant, pt.n, pt.seed), std::tie(whole.variant, whole.n, whole.seed));
        EXPECT_TRUE(mine.runs(pt));
      }
      auto again = p;
      apply_shard(again, {i, count});
      EXPECT_EQ(again.shard->ordinals, mine.shard->ordinals);
      EXPECT_EQ(stored_plan_digest(plan::from_json(mine.to_json())), plan_digest(p));  // the whole plan's
      for (const int o : mine.shard->ordinals) seen.insert(o);
    }
    ASSERT_EQ(seen.size(), p.points.size()) << count << " parts";
    for (int o = 0; o < static_cast<int>(p.points.size()); ++o) EXPECT_EQ(seen.count(o), 1u) << "point " << o;
  }
  EXPECT_NE(usage_of([&] {
              auto q = p;
              apply_shard(q, {0, 23});
            }).find("the plan has 22 points"),
            std::string::npos);
}

TEST(Shard, EqualPointsAreSpreadEvenlyAndTheDearestFirst) {
  const auto sizes = fault_plan("4..4096*2");
  const auto part = split_points(sizes, 2);
  // The two dearest points (the largest size, both variants) go to different parts.
  const auto last = sizes.points.size() - 1;
  EXPECT_NE(part[last], part[last - 1]);
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok", "wrong"};
  r.sizes = "64";
  r.instances = 6;  // twelve points of one cost
  const auto twelve = make_plan(r);
  ASSERT_EQ(twelve.points.size(), 12u);
  std::map<int, int> counts;
  for (const int x : split_points(twelve, 3)) ++counts[x];
  EXPECT_EQ(counts[0], 4);
  EXPECT_EQ(counts[1], 4);
  EXPECT_EQ(counts[2], 4);
}

TEST(Shard, APreviousRunsTimesBalanceTheParts) {
  const auto p = fault_plan("4,16,64,256");  // 8 points; the work model rates the larger sizes dearer
  point_costs costs;
  // A previous run found the smallest `wrong` point the slowest by far: it should sit alone.
  for (const auto& pt : p.points) costs[cost_key(pt.problem, pt.variant, pt.n, pt.params.canonical_json())] = 1.0;
  const auto& slow = p.points[1];
  ASSERT_EQ(slow.variant, "wrong");
  costs[cost_key(slow.problem, slow.variant, slow.n, slow.params.canonical_json())] = 100.0;
  const auto part = split_points(p, 2, &costs);
  int with_slow = 0;
  for (const int x : part) with_slow += x == part[1];
  EXPECT_EQ(with_slow, 1);                      // the slow point alone, the seven others together
  EXPECT_EQ(split_points(p, 2, &costs), part);  // the same given the same times
  auto a = p, b = p;
  apply_shard(a, {0, 2}, &costs);
  apply_shard(b, {0, 2});
  EXPECT_NE(a.shard->basis, b.shard->basis);  // recorded, so merge can refuse a mix
  EXPECT_EQ(b.shard->basis, "work model");
  EXPECT_EQ(a.shard->digest, b.shard->digest);  // the same plan
  // Points the previous run did not have are scaled like the ones it had.
  point_costs some;
  some[cost_key(slow.problem, slow.variant, slow.n, slow.params.canonical_json())] = 100.0;
  const auto scaled = split_points(p, 2, &some);
  std::set<int> parts(scaled.begin(), scaled.end());
  EXPECT_EQ(parts.size(), 2u);
}

TEST(Shard, TheDigestNamesThePlanNotWhereItRuns) {
  auto a = fault_plan("4,16");
  auto b = a;
  b.notes.push_back("a variant left out on this node");
  b.input_cache_dir = "/scratch/node7/cache";
  EXPECT_EQ(plan_digest(a), plan_digest(b));
  apply_shard(b, {1, 2});
  EXPECT_EQ(b.shard->digest, plan_digest(a));
  EXPECT_NE(plan_digest(a), plan_digest(fault_plan("4,16", 2)));  // another seed
  EXPECT_NE(plan_digest(a), plan_digest(fault_plan("4,32")));
  auto c = a;
  c.reps.fixed = 3;
  EXPECT_NE(plan_digest(a), plan_digest(c));
}

// The digest as ema computed it before it was streamed: the hash of the stored plan's whole JSON
// text, less what names where it runs and the points added while it ran. Shards made then must
// merge with shards made now, so the two must agree.
std::string whole_text_digest(const plan& p) {
  auto j = p.to_json();
  for (const char* k : {"notes", "input_cache", "shard", "merged"}) j.erase(k);
  auto& points = j["points"];
  points.erase(std::remove_if(points.begin(), points.end(), [](const nlohmann::json& x) { return x.contains("phase"); }), points.end());
  if (j.contains("calibration"))
    for (auto& t : j["calibration"]["tracks"]) t.erase("stopped"), t.erase("settled");
  if (j.contains("external")) j["external"].erase("cache_dir"), j["external"].erase("cwd");
  const auto text = j.dump();
  return fmt::format("{:016x}{:016x}", hash_text(text), mix64(hash_text(text) ^ text.size()));
}

TEST(Shard, TheStreamedDigestIsTheWholeTextsAndIgnoresAddedPoints) {
  auto p = fault_plan("4,16,64");
  EXPECT_EQ(plan_digest(p), whole_text_digest(p));
  const auto before = plan_digest(p);
  p.add("fault", "ok", 128, p.points.front().params, "tie-breaker");  // `ema fit` adds one
  EXPECT_EQ(plan_digest(p), before);
  EXPECT_EQ(plan_digest(p), whole_text_digest(p));
  plan empty = fault_plan("4");
  empty.points.clear();
  EXPECT_EQ(plan_digest(empty), whole_text_digest(empty));
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok", "wrong"};
  r.budget = 60;
  auto c = make_plan(r);
  c.add("fault", "ok", 64, c.calibrated->tracks.front().params, "grow");
  EXPECT_EQ(plan_digest(c), whole_text_digest(c));
  // A shard stored by the ema before this one: its recorded digest still checks.
  auto j = nlohmann::json::parse(
      R"({"energy":{"enabled":false,"window":1.0},"instances":1,"notes":[],"points":[{"instance":0,"n":1024,"ordinal":0,"params":{"copies":"1","hit":"none"},"problem":"search","seed":1,"variant":"seq"}],"repetitions":{"fixed":3,"max_reps":2000,"max_time":1.0,"min_reps":5,"min_time":0.2,"target_rse":0.01,"warmup":0},"seed":1,"shard":{"basis":"work model","count":1,"digest":"0","index":0,"ordinals":[0],"tracks":0},"timeout":300.0})");
  auto old = plan::from_json(j);
  j["shard"]["digest"] = whole_text_digest(old);
  EXPECT_EQ(stored_plan_digest(plan::from_json(j)), whole_text_digest(old));
}

TEST(Shard, IsStoredWithThePlanAndCheckedWhenRead) {
  auto p = fault_plan("4,16,64");
  apply_shard(p, {1, 2});
  const auto back = plan::from_json(p.to_json());
  ASSERT_TRUE(back.shard);
  EXPECT_EQ(back.shard->index, 1);
  EXPECT_EQ(back.shard->count, 2);
  EXPECT_EQ(back.shard->digest, p.shard->digest);
  EXPECT_EQ(back.shard->ordinals, p.shard->ordinals);
  EXPECT_EQ(back.shard->size, 6);
  auto j = p.to_json();
  EXPECT_FALSE(j["shard"].contains("ordinals"));  // its points' ordinals are its own
  EXPECT_EQ(j["points"].size(), p.shard->ordinals.size());
  j["shard"]["index"] = 2;
  EXPECT_THROW(plan::from_json(j), database_error);
  j = p.to_json();
  j["points"][0]["ordinal"] = 6;  // beyond the whole plan
  EXPECT_THROW(plan::from_json(j), database_error);
  j = p.to_json();
  j["points"][1]["ordinal"] = j["points"][0]["ordinal"];  // out of order
  EXPECT_THROW(plan::from_json(j), database_error);
  // A point added later (a tie-breaker) is numbered past the whole plan, so no shard's own clash.
  auto q = plan::from_json(p.to_json());
  q.add("fault", "ok", 128, q.points.front().params, "tie-breaker");
  EXPECT_EQ(q.points.back().ordinal, 6);
  EXPECT_EQ(plan::from_json(q.to_json()).shard->ordinals, p.shard->ordinals);
  // A shard of the ema before this one stored the whole plan and its ordinals; still read.
  auto whole = fault_plan("4,16,64");
  nlohmann::json old = whole.to_json();
  old["shard"] = {{"index", 1}, {"count", 2}, {"digest", plan_digest(whole)}, {"ordinals", {1, 4}}, {"tracks", 0}, {"basis", "work model"}};
  const auto read = plan::from_json(old);
  EXPECT_EQ(read.points.size(), 6u);
  EXPECT_EQ(read.shard->ordinals, (std::vector<int>{1, 4}));
  EXPECT_FALSE(read.runs(read.points[0]));
  EXPECT_TRUE(read.runs(read.points[4]));
  old["shard"]["ordinals"] = {0, 99};
  EXPECT_THROW(plan::from_json(old), database_error);
}

TEST(Shard, ACalibratedPlanSplitsItsTracks) {
  plan_request r;
  r.problems = {"fault"};
  r.variants = {"ok", "wrong", "crash"};
  r.budget = 60;
  const auto p = make_plan(r);
  ASSERT_TRUE(p.calibrated);
  const auto tracks = p.calibrated->tracks.size();
  ASSERT_GE(tracks, 3u);
  std::size_t total = 0;
  for (int i = 0; i < 2; ++i) {
    auto mine = p;
    apply_shard(mine, {i, 2});
    EXPECT_EQ(mine.shard->tracks, static_cast<int>(tracks));
    EXPECT_DOUBLE_EQ(mine.calibrated->budget, p.calibrated->budget);  // the budget is per task
    for (std::size_t k = 0; k < mine.calibrated->tracks.size(); ++k)
      EXPECT_EQ(mine.calibrated->tracks[k].variant, p.calibrated->tracks[2 * k + static_cast<std::size_t>(i)].variant);
    total += mine.calibrated->tracks.size();
  }
  EXPECT_EQ(total, tracks);
  EXPECT_NE(usage_of([&] {
              auto q = p;
              apply_shard(q, {0, static_cast<int>(tracks) + 1});
            }).find("track"),
            std::string::npos);
}

}  // namespace
}  // namespace ema
