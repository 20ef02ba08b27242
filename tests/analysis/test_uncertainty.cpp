// The bootstrap interval of the leading exponent covers the truth, the band brackets the curve,
// and the held-out check predicts the largest sizes of a clean power law.
#include <cmath>
#include <gtest/gtest.h>
#include <random>

#include "analysis/analyze.hpp"

namespace ema::fit {
namespace {

series noisy_square(int replicates, double noise, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  series s;
  for (int i = 0; i < 13; ++i)
    for (int r = 0; r < replicates; ++r) {
      const double n = std::exp2(8 + i);
      s.add(n, 1e-9 * n * n * std::exp(noise * z(rng)));
    }
  return s;
}

TEST(Uncertainty, IntervalCoversTheExponentWithReplicates) {
  auto d = noisy_square(5, 0.05, 7);
  auto a = analyze(d);
  ASSERT_EQ(a.groups.best.theta().text(), "Θ(n²)");
  ASSERT_TRUE(a.uncertainty.interval);
  const auto& ci = *a.uncertainty.interval;
  EXPECT_EQ(ci.what, "exponent of n");
  EXPECT_LT(ci.lo, 2.0);
  EXPECT_GT(ci.hi, 2.0);
  EXPECT_LT(ci.hi - ci.lo, 0.1);
  EXPECT_GE(ci.resamples, 190);
  ASSERT_FALSE(a.uncertainty.band.empty());
  for (const auto& b : a.uncertainty.band) {
    EXPECT_LE(b.lo, a.groups.best(b.n) * 1.0001);
    EXPECT_GE(b.hi, a.groups.best(b.n) * 0.9999);
  }
}

TEST(Uncertainty, AWrongClassDoesNotClipTheInterval) {
  // Θ(n²) data judged against a Θ(n³) fit: the data's own exponent, 2, lies outside the class's
  // half step either side, and the interval still reaches it.
  auto d = noisy_square(5, 0.05, 11);
  auto cubic = equation::of({.a1 = 3});
  cubic.a0 = 1e-12;
  const auto fitted = fit_shape(d, cubic);
  ASSERT_TRUE(fitted);
  const auto b = bootstrap(d, *fitted, 100, 5, {});
  ASSERT_TRUE(b.interval);
  EXPECT_LT(b.interval->lo, 2.0);
  EXPECT_GT(b.interval->hi, 2.0);
}

TEST(Uncertainty, AConstantTheDataDoNotWantDoesNotFreezeTheResamples) {
  // n^0.4 with 5% noise, judged against Θ(n) + c: freed, the exponent goes to 0.4 and c to its
  // bound 0, where it has no slope. Resamples started there once all returned the centre's
  // exponent, an interval of zero width.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z(0, 0.05);
  series d;
  for (int i = 0; i < 12; ++i)
    for (int r = 0; r < 5; ++r) {
      const double n = 4096 * std::exp2(i / 5.5);
      d.add(n, 1e-6 * std::pow(n, 0.4) * std::exp(z(rng)));
    }
  auto linear = equation::of({.a1 = 1, .constant = true});
  linear.a0 = 1e-9, linear.c = 1e-5;
  const auto fitted = fit_shape(d, linear);
  ASSERT_TRUE(fitted);
  const auto b = bootstrap(d, *fitted, 100, 5, {});
  ASSERT_TRUE(b.interval);
  EXPECT_GT(b.interval->hi - b.interval->lo, 0.02) << b.interval->lo << " " << b.interval->hi;
  EXPECT_LT(b.interval->lo, 0.4);
  EXPECT_GT(b.interval->hi, 0.4);
}

TEST(Uncertainty, ResidualBootstrapWithoutReplicates) {
  auto a = analyze(noisy_square(1, 0.03, 9));
  ASSERT_TRUE(a.uncertainty.interval);
  EXPECT_LT(a.uncertainty.interval->lo, 2.0);
  EXPECT_GT(a.uncertainty.interval->hi, 2.0);
}

TEST(Uncertainty, ExponentialLeadsWithItsBase) {
  series s;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z(0, 1);
  for (int i = 0; i < 13; ++i)
    for (int r = 0; r < 5; ++r) s.add(8 + 2 * i, 1e-6 * std::exp2(8 + 2 * i) * std::exp(0.02 * z(rng)));
  auto a = analyze(s);
  ASSERT_TRUE(a.uncertainty.interval);
  EXPECT_EQ(a.uncertainty.interval->what, "base of the exponential term");
  EXPECT_LT(a.uncertainty.interval->lo, 2.0);
  EXPECT_GT(a.uncertainty.interval->hi, 2.0);
}

TEST(Uncertainty, HeldOutPredictsTheLargestSizes) {
  auto a = analyze(noisy_square(5, 0.02, 11));
  ASSERT_TRUE(a.check);
  EXPECT_EQ(a.check->points.size(), 2u);  // a fifth of 13 sizes
  EXPECT_EQ(a.check->points.back().n, std::exp2(20));
  EXPECT_LT(a.check->max_rel_err, 0.05);
  EXPECT_EQ(a.check->best.theta().text(), "Θ(n²)");
}

TEST(Uncertainty, NothingWithoutResamplesOrSizes) {
  analysis_options o;
  o.bootstrap = 0;
  auto a = analyze(noisy_square(5, 0.02, 1), o);
  EXPECT_FALSE(a.uncertainty.interval);
  EXPECT_TRUE(a.uncertainty.band.empty());
  series few;
  for (double n : {10.0, 20.0, 40.0, 80.0}) few.add(n, n);
  EXPECT_FALSE(analyze(few).check);  // fewer than 6 sizes
}

}  // namespace
}  // namespace ema::fit
