#include <cmath>
#include <gtest/gtest.h>
#include <random>

#include "measure/stats.hpp"

namespace ema {
namespace {

TEST(Stats, Summary) {
  std::vector<double> v{5, 1, 3, 2, 4};
  auto s = summarize(v);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.stddev, std::sqrt(2.5), 1e-12);
}

TEST(Stats, MedianOfEvenCountAveragesTheMiddle) { EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5); }

TEST(Stats, MedianRseNeedsThreeSamples) {
  EXPECT_TRUE(std::isinf(median_rse(std::vector<double>{1, 1})));
  EXPECT_DOUBLE_EQ(median_rse(std::vector<double>{2, 2, 2}), 0.0);
}

TEST(Stats, MedianRseMatchesTheNormalTheory) {
  // For normal samples the standard error of the median is about 1.2533 sigma / sqrt(k).
  std::mt19937_64 rng(7);
  std::normal_distribution<double> d(100.0, 5.0);
  std::vector<double> v;
  for (int i = 0; i < 4000; ++i) v.push_back(d(rng));
  const double expected = 1.2533 * 5.0 / std::sqrt(4000.0) / 100.0;
  EXPECT_NEAR(median_rse(v), expected, 0.1 * expected);
}

TEST(Stats, MedianRseIsRobustToOutliers) {
  std::vector<double> v(50, 1.0);
  for (int i = 0; i < 50; ++i) v[i] += 0.001 * (i % 5);
  double before = median_rse(v);
  v.push_back(1000.0);
  EXPECT_LT(median_rse(v), 2 * before);
}

}  // namespace
}  // namespace ema
