// The calibration's decisions: predicted wall time and memory from the points so far, the fill
// that spreads at least 12 sizes evenly in log n (or where the run time grows), a flat stretch
// crossed faster, and each reason growth stops.
#include <cmath>
#include <gtest/gtest.h>

#include "runner/calibrate.hpp"

namespace ema {
namespace {

// A point whose runs take `run` seconds, measured under the default policy.
observation point(double n, double run, double other = 0.05) {
  observation o;
  o.n = n;
  o.run = run;
  o.timed_runs = std::max(5, static_cast<int>(std::ceil(0.2 / run)));
  o.wall = other + run * (1 + o.timed_runs);
  o.host_bytes = 1e6 + 4 * n;
  return o;
}

cost_policy policy() { return {repetition_policy{}, 0.0, 1}; }

TEST(Calibrate, WallTimeFollowsTheRunsOnceTheyDominate) {
  // Runs growing like n^2 from 0.1 s: five timed runs and a warm-up each.
  std::vector<observation> obs = {point(1000, 0.1), point(2000, 0.4)};
  const double next = predict_wall(obs, 4000, policy());
  EXPECT_NEAR(next, 0.05 + 1.6 * 6, 0.01);  // runs of 1.6 s (n^2), a warm-up and five timed; the rest stays flat
  EXPECT_GT(next, obs.back().wall * 3);
}

TEST(Calibrate, OneSlowPointDoesNotMakeTheNextSizeLookUnaffordable) {
  // Runs linear in n from 0.1 s, then a point slowed 4 times by a busy machine: its step alone
  // has slope 3 (x8 a doubling); the steps before it cap the slope one power of n above theirs.
  std::vector<observation> obs = {point(1000, 0.1), point(2000, 0.2), point(4000, 0.4), point(8000, 3.2)};
  const double next = predict_wall(obs, 16000, policy());
  EXPECT_GT(next, 3.2 * 4 * 6);  // runs of 12.8 s (slope 2), a warm-up and five timed, and the rest
  EXPECT_LT(next, 3.2 * 4 * 6 + 1);
  EXPECT_LT(next, 3.2 * 8 * 6);  // not 25.6 s a run (slope 3), which stopped growth
  // A steady bend is followed: runs going from n to n^2 keep their slope of 2 (1 + 1).
  std::vector<observation> bend = {point(1000, 0.1), point(2000, 0.2), point(4000, 0.8)};
  const double after_bend = predict_wall(bend, 8000, policy());
  EXPECT_GT(after_bend, 3.2 * 6);
  EXPECT_LT(after_bend, 3.2 * 6 + 0.5);
  // From a single step, no steeper than n^2: a first point slowed 8 times (slope 3) predicts x4.
  std::vector<observation> two = {point(1000, 0.1), point(2000, 0.8)};
  EXPECT_LT(predict_wall(two, 4000, policy()), 0.8 * 4 * 6 + 1);
}

TEST(Calibrate, FastRunsCostTheMinimumTime) {
  std::vector<observation> obs = {point(1000, 1e-6), point(2000, 2e-6)};
  const double next = predict_wall(obs, 4000, policy());
  EXPECT_GT(next, 0.2);  // the timed runs last at least --min-time
  EXPECT_LT(next, 0.4);
}

TEST(Calibrate, TheEnergyWindowCountsOnlyWhereThereWasOne) {
  std::vector<observation> obs = {point(1000, 1e-6), point(2000, 2e-6)};
  const cost_policy with_window{repetition_policy{}, 1.0, 1};
  EXPECT_LT(predict_wall(obs, 4000, with_window), 0.4);  // a CPU variant with no energy meter
  obs.back().energy_span = 1.0;
  obs.back().wall += 1.0;
  EXPECT_GT(predict_wall(obs, 4000, with_window), 1.0);
}

TEST(Calibrate, InsideTheRangeWallsAreInterpolated) {
  std::vector<observation> obs = {point(1000, 0.01), point(4000, 0.16)};
  const double mid = predict_wall(obs, 2000, policy());
  EXPECT_GT(mid, obs[0].wall);
  EXPECT_LT(mid, obs[1].wall);
}

TEST(Calibrate, MemoryGrowsAboveItsBaseline) {
  std::vector<observation> obs = {point(1000, 0.01), point(2000, 0.01)};  // 1 MB baseline + 4 bytes per element
  EXPECT_NEAR(predict_bytes(obs, 4000, &observation::host_bytes), 1e6 + 4 * 4000, 1);
  // A jump of 4096 times (`ema fit --settle`): the baseline is not multiplied with it.
  EXPECT_NEAR(predict_bytes(obs, 2000 * 4096.0, &observation::host_bytes), 1e6 + 4 * 2000 * 4096.0, 1);
  EXPECT_EQ(predict_bytes(obs, 4000, &observation::device_bytes), 0);
  // Growth steeper than linear (an n x n matrix) is extrapolated at its power.
  for (auto& o : obs) o.host_bytes = 1e6 + 8 * o.n * o.n;
  const double at = predict_bytes(obs, 8000, &observation::host_bytes);
  EXPECT_GT(at, 1e6 + 8 * 8000.0 * 8000 * 0.5);
  EXPECT_LT(at, 1e6 + 8 * 8000.0 * 8000 * 1.5);
  // Flat: the peak measured stands.
  for (auto& o : obs) o.host_bytes = 5e6;
  EXPECT_EQ(predict_bytes(obs, 1e9, &observation::host_bytes), 5e6);
  // One size: proportional to n.
  EXPECT_NEAR(predict_bytes({point(1000, 0.01)}, 4000, &observation::host_bytes), 4 * (1e6 + 4000), 1);
}

TEST(Calibrate, FillSpreadsSizesEvenlyInLogN) {
  std::vector<std::uint64_t> doubling;
  for (int k = 10; k <= 17; ++k) doubling.push_back(1ull << k);  // 8 sizes
  const auto added = fill_sizes(doubling, 12);
  ASSERT_EQ(added.size(), 4u);
  for (auto n : added) {
    const double l = std::log2(static_cast<double>(n));
    EXPECT_NEAR(l - std::floor(l), 0.5, 0.01) << n;  // geometric midpoints
  }
  EXPECT_EQ(added.front(), 1448u);  // the cheapest gaps first
  EXPECT_TRUE(fill_sizes(doubling, 8).empty());
  EXPECT_EQ(fill_sizes({1, 2, 3}, 12).size(), 0u);  // no integer between them
  EXPECT_EQ(fill_sizes({1, 4}, 12), (std::vector<std::uint64_t>{2, 3}));
}

TEST(Calibrate, AFlatStretchIsCrossedFourTimesAStepAndFilledWhereTheRunTimeGrows) {
  // A GPU sort's shape: runs flat at 50 µs (launches) to 2^20, then linear.
  const auto run = [](double n) { return std::max(50e-6, 50e-6 * n / 1048576); };
  std::vector<observation> obs;
  for (int k = 12; k <= 24; k += k < 20 ? 2 : 1) obs.push_back(point(std::exp2(k), run(std::exp2(k))));
  // Growth: past a flat stretch 4x, or up to 16x where even a run time growing as n² would cost
  // a point no more than twice (here runs of 50 µs: 16x costs nothing more); 2x past a growing step.
  growth_limits l;
  l.allowance = 1e9, l.timeout = 300, l.host_free = 1e12;
  const std::vector<observation> flat(obs.begin(), obs.begin() + 3);  // 2^12, 2^14, 2^16
  EXPECT_TRUE(flat_at_top(flat));
  EXPECT_FALSE(flat_at_top({obs[0], obs[1]}));  // one flat step is not yet a stretch
  EXPECT_EQ(next_size(flat, l, policy()).next, std::optional<std::uint64_t>(1ull << 20));
  EXPECT_FALSE(flat_at_top(obs));
  EXPECT_EQ(next_size(obs, l, policy()).next, std::optional<std::uint64_t>(1ull << 25));
  // The fill goes past the flat stretch: 2^12..2^20 in 4x steps and 2^21..2^24, to 12 sizes.
  std::vector<std::uint64_t> sizes;
  for (const auto& o : obs) sizes.push_back(static_cast<std::uint64_t>(o.n));
  const auto added = fill_sizes(sizes, 12, {}, cost_gap(obs));
  ASSERT_EQ(added.size(), 3u);
  for (auto n : added) EXPECT_GT(n, 1u << 20) << n;
  // By width in log n alone the fill splits the flat stretch's 4x gaps instead.
  for (auto n : fill_sizes(sizes, 12)) EXPECT_LT(n, 1u << 20) << n;
  // While the run time is flat, growth does not reserve for filling the range to 12 sizes: merge-path
  // on an H200 (seed 33), 4096 and 8192 at 0.41 and 0.44 s a point, stopped at 8192 with a 4.52 s
  // share when 2^15 with ten fills would take 5.06 s, and filled 4096..8192 with ten sizes. One flat
  // step now doubles (a range of 4, filled to 6); after two, a long step (16x: runs of 33 µs) with
  // the fill to 6 reserved, where the fill to 12 (3.9 s) would not fit a 3.8 s share.
  observation a = point(4096, 30e-6), b = point(8192, 32e-6), c = point(16384, 33e-6);
  a.wall = 0.41, b.wall = 0.44, c.wall = 0.43;
  growth_limits share = l;
  share.allowance = 4.52;
  auto step = next_size({a, b}, share, policy());
  EXPECT_EQ(step.next, std::optional<std::uint64_t>(1u << 14)) << step.stop;
  share.allowance = 3.8;
  step = next_size({a, b, c}, share, policy());
  EXPECT_EQ(step.next, std::optional<std::uint64_t>(1u << 18)) << step.stop;
  // Where the run time grows, the fill to 12 is reserved as before: after three growing sizes of
  // about 0.6 s a point, 2^15 and eight fills (5.6 s) do not fit 5.5 s.
  share.allowance = 5.5;
  const std::vector<observation> growing = {point(4096, 30e-6, 0.40), point(8192, 60e-6, 0.43), point(16384, 120e-6, 0.43)};
  const auto held = next_size(growing, share, policy());
  EXPECT_FALSE(held.next);
  EXPECT_NE(held.stop.find("with the sizes it would need filled in"), std::string::npos) << held.stop;
  // Past the flat stretch, a gap's width is the run time's change across it; inside it, a quarter of its width in log n.
  EXPECT_NEAR(cost_gap(obs)(1 << 21, 1 << 22), std::log(2.0), 1e-9);
  EXPECT_NEAR(cost_gap(obs)(1 << 12, 1 << 14), 0.25 * std::log(4.0), 1e-9);
}

growth_limits limits(double allowance) {
  growth_limits l;
  l.allowance = allowance;
  l.timeout = 300;
  l.host_free = 1e12;
  return l;
}

// Past the ramp by itself: a GPU point's wall is its process and at least 0.2 s of timed runs
// while runs are short, so a flat stretch is crossed in the longest step (to 16x) that would cost a
// point no more than twice the last, were the run time to grow as n² from there; and the 12 sizes
// a track needs are counted from the end of its flat start.
TEST(Calibrate, AFlatStretchOfShortRunsIsCrossedInOneLongStepAndTheSizesCountFromItsEnd) {
  // cub-merge's total time on an H200 (60 s sort sweep, seed 60): 0.14-0.17 ms a run to 2^16,
  // 0.4 s a point.
  const auto gpu = [](double n, double run) {
    auto o = point(n, run, 0.2);
    o.wall = 0.41;
    return o;
  };
  std::vector<observation> obs = {gpu(4096, 0.136e-3), gpu(8192, 0.171e-3), gpu(16384, 0.166e-3)};
  growth_limits l = limits(100);
  // Even quadratic from 0.17 ms, 16x (256x the run time: 42 ms) costs 5 runs of 42 ms: 0.46 s.
  auto step = next_size(obs, l, policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 1u << 18);
  // Level, though a step reads as growing (0.12 to 0.17 ms over a doubling: jitter): the whole
  // start lies within twice its smallest run.
  step = next_size({gpu(4096, 0.119e-3), gpu(8192, 0.117e-3), gpu(16384, 0.171e-3)}, l, policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 1u << 18);
  // A level start reserves for no fill: growth goes on while the next point alone fits its share
  // (thrust-sort at 0.12-0.15 ms, 0.36-0.39 s a point: it stopped at 2^14 reserving for two fills).
  std::vector<observation> thrust = {gpu(4096, 0.119e-3), gpu(8192, 0.151e-3), gpu(16384, 0.155e-3)};
  thrust[0].wall = 0.36, thrust[1].wall = 0.38, thrust[2].wall = 0.39;  // 2^18 and two fills: about 1.16 s
  step = next_size(thrust, limits(1.15), policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 1u << 18);
  // Runs of 2 ms: 16x would be 0.5 s a run, 8x 128 ms (0.97 s a point with the warm-up, over
  // twice 0.41 s), so the 4x step of a flat stretch.
  std::vector<observation> longer = {gpu(4096, 2e-3), gpu(8192, 2.1e-3), gpu(16384, 2.2e-3)};
  step = next_size(longer, l, policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 1u << 16);
  // A long step never past the memory: 16x would need 80% of what is free; 8x fits.
  l.host_free = 1.25 * (1e6 + 4.0 * (1u << 17)) + 1;
  step = next_size(obs, l, policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 1u << 17);
  // The flat start ends at 2^18; from there the cost grows. The sizes count from 2^18: with 2^18
  // and 2^19 measured, the range is narrow (2x past the start), so growth goes on while the next
  // point alone fits, where counted from 4096 (a range of 128x) it reserved for 12 sizes.
  obs.push_back(gpu(1 << 18, 0.4e-3));
  // The run time has risen (0.4 ms, three times the smallest): the top is still flat (2.4x over
  // 16x), but the step is the flat stretch's 4x, no longer: the sizes past the ramp are the ones
  // a verdict counts.
  step = next_size(obs, limits(100), policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 1u << 20);
  obs.push_back(gpu(1 << 19, 0.9e-3));
  EXPECT_EQ(rising_from(obs), 3u);
  EXPECT_EQ(rising_from({obs[0], obs[1]}), 0u);          // one flat step is no flat start
  EXPECT_EQ(rising_from({obs[0], obs[1], obs[2]}), 0u);  // nor is flat to the top: that is Θ(1)
  EXPECT_EQ(rising_from({point(1000, 0.1), point(2000, 0.2), point(4000, 0.4)}), 0u);
  step = next_size(obs, limits(0.5), policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 1u << 20);
  // Growth reserves for the fill to 12 sizes from 2^18: with 2^18..2^21 measured (0.41-0.6 s a
  // point), 2^22 and the seven fills (4.2 s) do not fit 3.5 s, where counted from 4096 (two
  // fills, 1.7 s) they did.
  obs.push_back(gpu(1 << 20, 1.8e-3));
  obs.push_back(gpu(1 << 21, 3.6e-3));
  obs[4].wall = 0.45, obs[5].wall = 0.5, obs[6].wall = 0.6;
  step = next_size(obs, limits(3.5), policy());
  EXPECT_FALSE(step.next);
  EXPECT_NE(step.stop.find("with the sizes it would need filled in"), std::string::npos) << step.stop;
}

TEST(Calibrate, GrowsWhileItsShareAllows) {
  std::vector<observation> obs = {point(1000, 0.01), point(2000, 0.02)};
  auto step = next_size(obs, limits(100), policy());
  ASSERT_TRUE(step.next);
  EXPECT_EQ(*step.next, 4000u);
  EXPECT_GT(step.predicted_wall, 0);
  // 10 more points of the cheapest (0.26 s) fit in 2.61 s. While the range is narrower than a
  // factor of 8, only the 6 sizes a verdict needs are reserved for, so it grows to 4000 first...
  step = next_size(obs, limits(2.61), policy());
  ASSERT_TRUE(step.next);
  EXPECT_EQ(*step.next, 4000u);
  // ... but not to 8000, with the sizes that would then fill its range to 12.
  obs.push_back(point(4000, 0.04));
  step = next_size(obs, limits(2.61), policy());
  EXPECT_FALSE(step.next);
  EXPECT_NE(step.stop.find("share of the budget"), std::string::npos) << step.stop;
}

// A track whose sizes span less than a factor of 4 grows while the next point alone fits its
// share, reserving for no fill: stopping leaves a range no fill makes worth fitting (a 60 s sort
// sweep on an H200 stopped seven GPU sorts at their first size, 4096, at 0.44 s a point: 2^13
// "would take about 2.63 s with the sizes it would need filled in", over a 2.58 s share).
TEST(Calibrate, ARangeTooNarrowToFillGrowsWhileTheNextPointFits) {
  // A GPU sort's launch-bound start: 0.44 s a point, nearly all of it process start and checking.
  const auto gpu = [](double n, double wall) {
    auto o = point(n, 1e-4, 0);
    o.wall = wall;
    return o;
  };
  std::vector<observation> obs = {gpu(4096, 0.44)};
  auto step = next_size(obs, limits(2.58), policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 8192u);
  EXPECT_LT(step.predicted_wall, 0.8);
  obs.push_back(gpu(8192, 0.44));
  step = next_size(obs, limits(2.1), policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 16384u);
  // From a factor of 4 it reserves for the fill again: a cost that doubles a step, 2^15 at about
  // 3.5 s and the eight sizes filling its range to 12, over a 5 s share (which affords nine points
  // of the cheapest), stops it...
  step = next_size({gpu(4096, 0.44), gpu(8192, 0.88), gpu(16384, 1.76)}, limits(5), policy());
  EXPECT_FALSE(step.next);
  EXPECT_NE(step.stop.find("with the sizes it would need filled in"), std::string::npos) << step.stop;
  // ... where from 4096 and 8192 (2^14 at about 3.5 s with the three sizes filling to 6) it grows.
  step = next_size({gpu(4096, 0.44), gpu(8192, 0.88)}, limits(4), policy());
  ASSERT_TRUE(step.next) << step.stop;
  EXPECT_EQ(*step.next, 16384u);
  // ... and a next point that alone does not fit stops it at any width.
  step = next_size({gpu(4096, 0.44)}, limits(0.3), policy());
  EXPECT_FALSE(step.next);
}

TEST(Calibrate, StopsBeforeMemoryOrTimeoutOrTheLargestSize) {
  std::vector<observation> obs = {point(1000, 0.01), point(2000, 0.02)};
  auto l = limits(1e9);
  l.host_free = 10000;  // bytes
  auto step = next_size(obs, l, policy());
  EXPECT_FALSE(step.next);
  EXPECT_NE(step.stop.find("host memory"), std::string::npos) << step.stop;

  l = limits(1e9);
  obs.back().device_bytes = 1e9;
  obs.front().device_bytes = 5e8;
  l.device_free = 1.5e9;
  step = next_size(obs, l, policy());
  EXPECT_NE(step.stop.find("device memory"), std::string::npos) << step.stop;

  l = limits(1e9);
  l.timeout = 0.1;
  obs = {point(1000, 0.01), point(2000, 0.04)};
  step = next_size(obs, l, policy());
  EXPECT_NE(step.stop.find("per-point timeout"), std::string::npos) << step.stop;

  l = limits(1e9);
  l.max_size = 3000;
  step = next_size(obs, l, policy());
  EXPECT_EQ(step.next, 3000u);
  obs.push_back(point(3000, 0.05));
  step = next_size(obs, l, policy());
  EXPECT_NE(step.stop.find("largest size"), std::string::npos) << step.stop;
}

TEST(Calibrate, SizesAreOnesTheProblemTakes) {
  // A kron graph has 2^scale vertices: the nearest power of two (graph_problem::size_near).
  const size_snap power_of_two = [](std::uint64_t n) { return std::uint64_t{1} << std::lround(std::log2(static_cast<double>(n))); };
  // No size lies between two powers of two: the gaps are left, only the wide ones filled.
  EXPECT_TRUE(fill_sizes({1024, 2048, 4096, 8192}, 12, power_of_two).empty());
  EXPECT_EQ(fill_sizes({1024, 4096, 16384}, 12, power_of_two), (std::vector<std::uint64_t>{2048, 8192}));
  // Growth by 1.5 from 2^10 proposes 1536, taken as 2048; from 2^11, 3072 is taken as 4096.
  auto l = limits(1e9);
  l.growth = 1.5;
  l.snap = power_of_two;
  std::vector<observation> obs = {point(512, 0.01), point(1024, 0.02)};
  EXPECT_EQ(next_size(obs, l, policy()).next, 2048u);
  obs.push_back(point(2048, 0.04));
  EXPECT_EQ(next_size(obs, l, policy()).next, 4096u);
  // The largest size allowed, 3000, is not one it takes: 2048 was the last below it.
  l.max_size = 3000;
  const auto step = next_size(obs, l, policy());
  EXPECT_FALSE(step.next);
  EXPECT_NE(step.stop.find("reached the largest size allowed (3000) that the problem takes"), std::string::npos) << step.stop;
}

TEST(Calibrate, ABudgetTooSmallForTwelveSizesGrowsAsWideAsItCan) {
  // Points of about 1 s whatever the size (an energy window, a context): 12 of them cost 12 s. The
  // runs inside grow with n (a flat run time would reserve for 6 sizes only, AFlatStretch... below).
  auto flat = [](double n) {
    observation o = point(n, 1e-9 * n);
    o.wall = 1.0;
    return o;
  };
  std::vector<observation> obs = {flat(1024)};
  auto step = next_size(obs, limits(9), policy());  // 9 s left: 12 sizes are out of reach
  ASSERT_TRUE(step.next) << step.stop;
  obs = {flat(1024), flat(2048), flat(4096), flat(8192), flat(16384), flat(32768), flat(65536), flat(131072)};
  step = next_size(obs, limits(0.8), policy());
  EXPECT_FALSE(step.next);
  EXPECT_NE(step.stop.find("cannot afford 12 sizes"), std::string::npos) << step.stop;
  const auto fill = affordable_fill(obs, fill_sizes({1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}, 12), 2.5, policy());
  EXPECT_EQ(fill.size(), 2u);  // 1 s each: two fit in 2.5 s
}

TEST(Calibrate, TheSettlePhaseStepsTowardAFarSizeNoFurtherThanGrowthDoes) {
  // A GPU stencil on an H200 (cuda-naive, 60 s): measured to 4096, its verdict named 32768; the
  // point predicted within its 11 s timeout from the launch-bound sizes below timed out, its grid
  // built and checked on the host. The settle phase goes 4x a round toward it.
  growth_limits l;
  EXPECT_EQ(settle_step(4096, 32768, l), 16384u);
  EXPECT_EQ(settle_step(16384, 32768, l), 32768u);  // within reach: the size named
  EXPECT_EQ(settle_step(4096, 8192, l), 8192u);
  l.growth = 8;  // a plan that grows faster steps as far
  EXPECT_EQ(settle_step(4096, 65536, l), 32768u);
  // As the problem takes it: kron graphs run powers of two only.
  growth_limits kron;
  kron.snap = [](std::uint64_t n) { return std::uint64_t{1} << static_cast<int>(std::lround(std::log2(static_cast<double>(n)))); };
  EXPECT_EQ(settle_step(1 << 20, 1u << 26, kron), 1u << 22);
  EXPECT_EQ(settle_step(0, 1024, l), 1024u);  // nothing measured: nothing to step from
}

TEST(Calibrate, TheSettlePhaseSpendsWhatIsLeftOnTheCheapestPointsThatFit) {
  // The H200 gauss sweep of 120 s (seed 48): 16 s left and seven tracks wanting 6.7-98 s each, each
  // its size named (the way is the step). An equal share each (2.3 s) ran none; the cheapest that
  // fit run.
  const std::vector<double> gauss = {6.73, 9.72, 15.2, 32.8, 36.8, 73.2, 98.5};
  EXPECT_EQ(settle_picks(gauss, gauss, 16), (std::vector<std::size_t>{0}));
  EXPECT_EQ(settle_picks(gauss, gauss, 17), (std::vector<std::size_t>{0, 1}));
  // In turn while they fit; nothing past the budget.
  const std::vector<double> a = {1, 5, 6}, b = {3, 3, 3}, one = {1};
  EXPECT_EQ(settle_picks(a, a, 7), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(settle_picks(b, b, 9), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_TRUE(settle_picks(one, one, 0).empty());
  EXPECT_TRUE(settle_picks({}, {}, 5).empty());
}

TEST(Calibrate, TheSettlePhaseKeepsBackTheWholeWayOfTracksItCanSettle) {
  // The 2-core VM's main job (devbox-main35-budget): 60 s left; gauss `omp` wanted 5793 (56 s) on
  // the way to 2^14 (1570 s more), search `omp` wanted 3.53M (20 ms) on the way to the 16.8M that
  // would settle it (80 ms more). By this round's cost alone both ran, and search's next round
  // found the budget spent; with the whole way kept back, search's way is kept and gauss's step no
  // longer fits what is left.
  const std::vector<double> steps = {0.02, 56}, ways = {0.1, 1626};
  EXPECT_EQ(settle_picks(steps, ways, 56.05), (std::vector<std::size_t>{0}));
  // With enough for both, both: the whole ways first, then the steps of the others.
  EXPECT_EQ(settle_picks(steps, ways, 60), (std::vector<std::size_t>{0, 1}));
  // Whole ways in the order of their cost, whatever their step; the steps after them cheapest first.
  const std::vector<double> s3 = {5, 1, 2, 3}, w3 = {6, 20, 2, INFINITY};
  EXPECT_EQ(settle_picks(s3, w3, 12), (std::vector<std::size_t>{2, 0, 1, 3}));
  EXPECT_EQ(settle_picks(s3, w3, 10), (std::vector<std::size_t>{2, 0, 1}));  // 10 - 2 - 6 = 2: the step of 1 fits, then 1 is left, not 3
  // A way that is not known (infinite: a point on it over the timeout) runs only as a step.
  const std::vector<double> s4 = {4}, w4 = {INFINITY};
  EXPECT_EQ(settle_picks(s4, w4, 4), (std::vector<std::size_t>{0}));
}

TEST(Calibrate, ATimeoutPastMeasuredSizesEndsGrowthOrSettlingAsPlanned) {
  // A settle point predicted within the timeout from the sizes measured that ran past it (the H200
  // stencil's 32768 from 4096) leaves the track's range measured: not a failure, as growth's is not.
  EXPECT_TRUE(timeout_as_planned("grow", point_status::timeout, true));
  EXPECT_TRUE(timeout_as_planned("settle", point_status::timeout, true));
  EXPECT_FALSE(timeout_as_planned("settle", point_status::timeout, false));  // nothing smaller measured
  EXPECT_FALSE(timeout_as_planned("grow", point_status::timeout, false));
  EXPECT_FALSE(timeout_as_planned("settle", point_status::crashed, true));  // a crash is a failure anywhere
  EXPECT_FALSE(timeout_as_planned("fill", point_status::timeout, true));    // a fill size lies within the range
  EXPECT_FALSE(timeout_as_planned("energy", point_status::timeout, true));
  EXPECT_FALSE(timeout_as_planned("grow", point_status::ok, true));
}

}  // namespace
}  // namespace ema
