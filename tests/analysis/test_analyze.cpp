// The whole analysis of one series: validation with clear messages, the knee regime, and the JSON.
#include <cmath>
#include <gtest/gtest.h>

#include "analysis/analyze.hpp"

namespace ema::fit {
namespace {

TEST(Analyze, RejectsWhatCannotBeFitted) {
  series s;
  s.add(10, 1);
  s.add(20, 2);
  try {
    analyze(s);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "2 distinct sizes: a fit needs at least 3");
  }
  s.add(40, 0);
  try {
    analyze(s);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the value 0 at n = 40 is not positive"), std::string::npos);
  }
}

TEST(Analyze, KneeSplitsTheRegimes) {
  series s;
  for (int i = 0; i < 13; ++i) {
    const double n = std::exp2(8 + i);
    s.add(n, 1e-9 * std::max(n, 8192.0));
  }
  auto a = analyze(s);
  ASSERT_TRUE(a.knee);
  EXPECT_NEAR(std::log2(a.knee->where.n), 13, 0.2);
  EXPECT_EQ(a.knee->below.text(), "Θ(1)");
  EXPECT_EQ(a.knee->above.text(), "Θ(n)");
  EXPECT_EQ(a.groups.best.theta().text(), "Θ(n)");
  auto j = to_json(a);
  EXPECT_EQ(j["knee"]["below"]["text"], "Θ(1)");
  EXPECT_EQ(j["knee"]["above"]["text"], "Θ(n)");
}

TEST(Analyze, JsonHasEveryGroup) {
  series s;
  for (int i = 0; i < 8; ++i) s.add(1000 * (i + 1), 2e-9 * std::pow(1000.0 * (i + 1), 3) * (1 + 0.01 * (i % 3)));
  auto j = to_json(analyze(s));
  for (const char* k : {"best", "min_error", "equivalent", "distinguishable", "non_distinguishable", "knee", "leading_exponent", "band", "held_out",
                        "points", "sizes"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["best"]["theta"]["text"], "Θ(n³)");
  EXPECT_TRUE(j["knee"].is_null());
  for (const auto& d : j["distinguishable"]) EXPECT_TRUE(d.contains("tie_breaker"));
  EXPECT_EQ(j["points"].size(), 8u);
}

TEST(Analyze, ALaunchBoundStartLeavesTheClassToTheLargestSizes) {
  // The H200's thrust sort, kernel time (tests/analysis/real/h200-s2-b70-sort-thrust-sort-*): about
  // 70 µs of launches up to 2^17, then rising to Θ(n) as the device fills. Over the whole range √n
  // predicts best and the top steepens against it; the upper half excludes √n.
  const double n[] = {4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304, 8388608, 16777216, 33554432, 67108864};
  const double t[] = {2.61e-05, 5.56e-05, 6.86e-05, 6.88e-05, 7.81e-05, 7.46e-05, 0.000134, 0.00019,
                      0.000153, 0.000174, 0.000297, 0.000356, 0.000584, 0.00105,  0.00182};
  series s;
  for (int i = 0; i < 15; ++i)
    for (int r = 0; r < 3; ++r) s.add(n[i], t[i] * (1 + 0.004 * r));
  const auto a = analyze(s, {.bootstrap = 40});
  EXPECT_EQ(a.groups.best.theta().text(), "Θ(n)") << answer_text(a);
  EXPECT_EQ(a.regime_from, 524288);
  EXPECT_NE(a.regime.find("where the cost steepens"), std::string::npos) << a.regime;
  // A cost that is Θ(n) throughout and steps up near the top keeps the whole range.
  series step;
  for (int i = 10; i <= 24; ++i)
    for (int r = 0; r < 3; ++r) step.add(std::exp2(i), 1e-9 * std::exp2(i) * (i >= 22 ? 3 : 1) * (1 + 0.004 * r));
  const auto b = analyze(step, {.bootstrap = 40});
  EXPECT_EQ(b.regime.find("where the cost steepens"), std::string::npos) << b.regime;
}

TEST(Analyze, AnAnswerSlowerThanTheWorkIsNotFirm) {
  // The H200's thrust sort, kernel time, seed 3 (tests/analysis/real/h200-s3-sort-thrust-sort-*):
  // bound by its launches and latency from 2^12 to 2^24, the data exclude Θ(n) and answer Θ(√n)
  // firmly; the sort must move 2n keys, so that answer cannot last.
  const double n[] = {4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304, 8388608, 16777216};
  const double t[] = {2.5056e-05,  5.344e-05,   5.44e-05,    7.3072e-05,  7.4016e-05,  6.2176e-05, 0.000189376,
                      0.000187616, 0.000122336, 0.000191232, 0.000222144, 0.000337312, 0.000516064};
  series s;
  for (int i = 0; i < 13; ++i)
    for (int r = 0; r < 5; ++r) s.add(n[i], t[i] * (1 + 0.01 * r));
  const auto alone = analyze(s, {.bootstrap = 40});
  ASSERT_EQ(alone.groups.best.theta().text(), "Θ(√n)");
  EXPECT_FALSE(alone.below_work);
  const auto a = analyze(s, {.bootstrap = 40, .work = {[](double n) { return 8 * n; }}});
  EXPECT_EQ(a.groups.best.theta().text(), "Θ(√n)");  // the class is the data's; the verdict says why it cannot last
  ASSERT_TRUE(a.below_work);
  EXPECT_NEAR(a.below_work->work_exponent, 1, 1e-9);
  EXPECT_NEAR(a.below_work->answer_exponent, 0.5, 1e-9);
  EXPECT_GT(a.below_work->past, n[12]);
  EXPECT_NE(a.verdict.level, verdict_level::firm);
  ASSERT_TRUE(a.verdict.next_size);
  EXPECT_EQ(*a.verdict.next_size, a.below_work->past);
  bool said = false;
  for (const auto& r : a.verdict.reasons) said = said || r.find("grows slower than the work") != std::string::npos;
  EXPECT_TRUE(said) << answer_text(a);
  // A cost that keeps up with its work is untouched: Θ(n) against work n.
  series lin;
  for (int i = 10; i <= 24; ++i)
    for (int r = 0; r < 3; ++r) lin.add(std::exp2(i), 1e-9 * std::exp2(i) * (1 + 0.003 * r));
  EXPECT_FALSE(analyze(lin, {.bootstrap = 0, .work = {[](double n) { return n; }}}).below_work);
  // Θ(n) against work n log n differs by less than a quarter of a power over these sizes, but is a
  // lower class: never firm (the main job's merge-omp on a quiet 2-core VM, 330 ns a key over
  // 2^12..2^22, its n log n comparisons hidden by a per-key overhead, was firm Θ(n) before).
  const auto hidden = analyze(lin, {.bootstrap = 0, .work = {[](double n) { return n * std::log2(n); }}});
  ASSERT_TRUE(hidden.below_work);
  EXPECT_NE(hidden.verdict.level, verdict_level::firm);
  // Nor is a log factor short of the work: Θ(n log^0.5 n) against n log n.
  series half;
  for (int i = 10; i <= 24; ++i)
    for (int r = 0; r < 3; ++r) half.add(std::exp2(i), 1e-9 * std::exp2(i) * std::sqrt(i) * (1 + 0.003 * r));
  EXPECT_TRUE(analyze(half, {.bootstrap = 0, .work = {[](double n) { return n * std::log2(n); }}}).below_work);
}

}  // namespace
}  // namespace ema::fit
