// The saturation knee: found where a flat metric starts to grow, not in straight power laws, slow
// bends or exponentials.
#include <cmath>
#include <gtest/gtest.h>

#include "analysis/knee.hpp"

namespace ema::fit {
namespace {

series make(double (*f)(double)) {
  series s;
  for (int i = 0; i < 13; ++i) s.add(std::exp2(8 + i), f(std::exp2(8 + i)));
  return s;
}

TEST(Knee, FlatThenLinear) {
  auto k = find_knee(make([](double n) { return std::max(n, 5000.0); }));
  ASSERT_TRUE(k);
  EXPECT_NEAR(std::log2(k->n), std::log2(5000.0), 0.1);
  EXPECT_NEAR(k->slope_below, 0, 0.05);
  EXPECT_NEAR(k->slope_above, 1, 0.05);
}

TEST(Knee, FlatThenQuadraticThroughAnOverhead) {
  auto k = find_knee(make([](double n) { return 1e7 + n * n; }));
  ASSERT_TRUE(k);
  EXPECT_GT(k->n, 1000);
  EXPECT_LT(k->n, 10000);  // c = n^2 at n ≈ 3162
}

TEST(Knee, NoneInPowerLawsSlowBendsOrExponentials) {
  EXPECT_FALSE(find_knee(make([](double n) { return n * n; })));
  EXPECT_FALSE(find_knee(make([](double n) { return n * std::log2(n); })));
  EXPECT_FALSE(find_knee(make([](double n) { return 100 + std::log2(n); })));
  series e;
  for (int i = 0; i < 13; ++i) e.add(8 + 2 * i, std::exp2(8 + 2 * i));
  EXPECT_FALSE(find_knee(e));
}

// A GPU elimination launches a kernel a step: each step costs a launch's latency until its n²
// work fills the device, T = n · max(L, n²/R). The start is linear, not flat, and the cubic above
// it is a knee (gauss cuda-kv1 on an H200: 0.6 ms at 64 to 11 ms at 1024, then n³ from about
// 2048). A smooth linear-to-quadratic bend (a slope rising by one) is not: the start must be
// flat, or the slope must rise by 1.5 at least, and no more than to 5 (an exponential's slope
// rises without end).
TEST(Knee, ALinearLaunchBoundStartThenCubic) {
  const auto launches_then_cubic = make([](double n) { return n * std::max(10.0, n * n / 1e5); });
  auto k = find_knee(launches_then_cubic);
  ASSERT_TRUE(k);
  EXPECT_NEAR(std::log2(k->n), 0.5 * std::log2(1e6), 0.3);  // n² / 1e5 = 10 at n = 1000
  EXPECT_NEAR(k->slope_below, 1, 0.1);
  EXPECT_NEAR(k->slope_above, 3, 0.1);
  knee_options old;  // before: a knee only above a start of slope 0.5 at most
  old.max_slope_below = 0.5;
  EXPECT_FALSE(find_knee(launches_then_cubic, old));

  const auto linear_then_quadratic = make([](double n) { return n * std::max(10.0, n / 1e3); });
  EXPECT_FALSE(find_knee(linear_then_quadratic));
  knee_options any_bend;
  any_bend.min_bend_after_slow = 0.5;
  EXPECT_TRUE(find_knee(linear_then_quadratic, any_bend));  // the 1.5 is what holds it back

  series e;  // Fibonacci's recursion under a linear start-up cost (awk's, in the real set)
  for (int i = 0; i < 13; ++i) e.add(4 + 2 * i, std::pow(1.618, 4 + 2 * i) + 5000.0 * (4 + 2 * i));
  EXPECT_FALSE(find_knee(e));
  knee_options any_slope;
  any_slope.max_slope_after_slow = 100;
  EXPECT_TRUE(find_knee(e, any_slope));  // the 5 is what holds it back
}

TEST(Knee, NeedsEnoughSizesOnBothSides) {
  series s;
  for (int i = 0; i < 5; ++i) s.add(std::exp2(8 + i), std::max(std::exp2(8 + i), 1000.0));
  EXPECT_FALSE(find_knee(s));
}

}  // namespace
}  // namespace ema::fit
