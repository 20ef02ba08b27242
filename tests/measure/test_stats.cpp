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

namespace ema {
namespace {

TEST(Stats, QuantilesInterpolateBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 1), 4);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.75), 7);
  EXPECT_TRUE(std::isnan(quantile({}, 0.5)));
}

TEST(Stats, OutliersLieTenRobustSigmasFromTheMedian) {
  EXPECT_EQ(count_outliers(std::vector<double>{1.00, 1.01, 0.99, 1.02, 0.98}), 0u);
  EXPECT_EQ(count_outliers(std::vector<double>{1.00, 1.01, 0.99, 1.02, 0.98, 6.0}), 1u);  // a preempted run
  EXPECT_EQ(count_outliers(std::vector<double>{5, 5, 5, 5, 5, 5, 50}), 1u);               // no spread but one
  EXPECT_EQ(count_outliers(std::vector<double>{1, 1, 1, 100}), 0u);                       // too few to tell
}

TEST(Stats, ARatioIntervalHoldsTheRatioOfMedians) {
  std::mt19937_64 rng(3);
  const std::vector<double> a = {1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03}, b = {2.0, 2.05, 1.96, 2.02, 1.98, 2.01, 2.0};
  const auto [lo, hi] = median_ratio_interval(a, b, 500, rng);
  EXPECT_LE(lo, 2.0);
  EXPECT_GE(hi, 2.0);
  EXPECT_GT(lo, 1.8);
  EXPECT_LT(hi, 2.2);
  const auto one = median_ratio_interval(std::vector<double>{2.0}, std::vector<double>{3.0}, 500, rng);
  EXPECT_EQ(one.first, 1.5);
  EXPECT_EQ(one.second, 1.5);
}

}  // namespace
}  // namespace ema
