// Fitting single shapes and the whole family: noiseless data of each kind is recovered exactly.
#include <cmath>
#include <gtest/gtest.h>

#include "analysis/fit.hpp"

namespace ema::fit {
namespace {

series make(double (*f)(double), double from = 256, int count = 13, double step = 2, bool multiply = true) {
  series s;
  double n = from;
  for (int i = 0; i < count; ++i, n = multiply ? n * step : n + step) s.add(n, f(n));
  return s;
}

TEST(Fit, SeriesGroupsReplicates) {
  series s;
  s.add(4, 1);
  s.add(2, 5);
  s.add(4, 3);
  EXPECT_EQ(s.sizes(), (std::vector<double>{2, 4}));
  EXPECT_EQ(s.means(), (std::vector<double>{5, 2}));
  EXPECT_EQ(s.within(3, 10).size(), 2u);
}

TEST(Fit, LinearShapeRecoversCoefficientsAndConstant) {
  auto d = make([](double n) { return 3e-9 * n * n + 2e-3; });
  shape s{.a1 = 2, .constant = true};
  auto e = fit_shape(d, equation::of(s));
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->a0 / 3e-9, 1, 1e-9);
  EXPECT_NEAR(e->c / 2e-3, 1, 1e-6);
  EXPECT_LT(e->max_rel_err, 1e-9);
}

TEST(Fit, ConstantAtItsBoundIsNotAShape) {
  auto d = make([](double n) { return n; });
  shape s{.a1 = 1, .constant = true};
  EXPECT_FALSE(fit_shape(d, equation::of(s)));  // c would be 0: the shape without c says the same
}

TEST(Fit, ALowerOrderTermBesideTheLeadingOneIsRecovered) {
  // 1e-13 n³ + 5e-6 n + 2e-5: linear in its three coefficients, solved exactly.
  auto d = make([](double n) { return 1e-13 * n * n * n + 5e-6 * n + 2e-5; }, 64, 10);
  shape s{.a1 = 3, .constant = true, .lower = true, .l1 = 1};
  auto e = fit_shape(d, equation::of(s));
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->a0 / 1e-13, 1, 1e-6);
  EXPECT_NEAR(e->d / 5e-6, 1, 1e-6);
  EXPECT_NEAR(e->c / 2e-5, 1, 1e-6);
  EXPECT_TRUE(identified(*e, d.sizes()));
  EXPECT_EQ(e->theta().text(), "Θ(n³)");
  EXPECT_NE(e->formula().find(" · n^3 + 5.000e-06 · n + 2.000e-05"), std::string::npos) << e->formula();
  EXPECT_EQ(e->to_json()["coefficients"]["l1"], 1);
  EXPECT_EQ(e->coefficient_count(), 3);
  // With n's exponent freed (the bootstrap's interval), by Levenberg-Marquardt from there.
  auto freed = *e;
  freed.form.free_a1 = true;
  freed.a1 = 2.9;
  auto f = fit_shape(d, freed);
  ASSERT_TRUE(f);
  EXPECT_NEAR(f->a1, 3, 1e-3);
  EXPECT_NEAR(f->d / 5e-6, 1, 1e-2);
  // A lower term the data hardly have: refused (its coefficient at the bound 0) or not identified
  // (it carries 5% of the value nowhere).
  const auto tiny = make([](double n) { return 1e-13 * n * n * n + 2e-5 + 1e-30 * n; }, 64, 10);
  const auto t = fit_shape(tiny, equation::of(s));
  EXPECT_TRUE(!t || !identified(*t, tiny.sizes()));
}

TEST(Fit, FreeExponentIsRefinedWithinHalfAStep) {
  auto d = make([](double n) { return 1.4e-6 * std::pow(n, 2.97); });
  shape s{.a1 = 3, .free_a1 = true};
  auto e = fit_shape(d, equation::of(s));
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->a1, 2.97, 1e-6);
  EXPECT_NEAR(e->a0 / 1.4e-6, 1, 1e-5);
}

TEST(Fit, ExponentialBaseIsFitted) {
  auto d = make([](double n) { return 1e-9 * std::exp2(n) + 1e-6; }, 8, 13, 2, false);
  auto all = fit_family(d);
  ASSERT_FALSE(all.empty());
  EXPECT_TRUE(all.front().form.exp_term);
  EXPECT_NEAR(all.front().a2, 2, 1e-4);
  EXPECT_LT(all.front().max_rel_err, 1e-6);
}

TEST(Fit, FamilyPutsTheTrueShapeFirstOnNoiselessData) {
  auto d = make([](double n) { return 2e-8 * n * std::log2(n); });
  auto all = fit_family(d);
  ASSERT_FALSE(all.empty());
  EXPECT_LT(all.front().mse, 1e-20);
  bool lattice = false;
  for (const auto& e : all)
    if (!e.form.free_a1 && !e.form.free_a5 && !e.form.exp_term && e.a1 == 1 && e.a5 == 1 && !e.form.constant) lattice = e.mse < 1e-20;
  EXPECT_TRUE(lattice);
}

TEST(Fit, OnlyShapesWithFewerCoefficientsThanSizes) {
  auto d = make([](double n) { return n; }, 10, 2);
  for (const auto& e : fit_family(d)) EXPECT_LT(e.coefficient_count(), 2) << e.formula();
}

TEST(Fit, SizeOneLeavesOutLogTerms) {
  auto d = make([](double n) { return n; }, 1, 8);
  for (const auto& e : fit_family(d)) EXPECT_TRUE(e.a5 == 0 && !e.form.free_a5) << e.formula();
}

}  // namespace
}  // namespace ema::fit
