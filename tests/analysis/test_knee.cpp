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

TEST(Knee, NeedsEnoughSizesOnBothSides) {
  series s;
  for (int i = 0; i < 5; ++i) s.add(std::exp2(8 + i), std::max(std::exp2(8 + i), 1000.0));
  EXPECT_FALSE(find_knee(s));
}

}  // namespace
}  // namespace ema::fit
