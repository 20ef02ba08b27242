// EMA's groups: the minimum-error equation, equivalents within the threshold at every measured
// size, tie breakers above the data, distinguishable against non-distinguishable by the budget,
// and the best equation by each rule.
#include <cmath>
#include <gtest/gtest.h>

#include "analysis/groups.hpp"

namespace ema::fit {
namespace {

equation power(double a0, double a1, double mse, bool free_a1 = false, double a5 = 0) {
  shape s{.a1 = std::round(a1 * 2) / 2, .a5 = a5, .free_a1 = free_a1};
  auto e = equation::of(s);
  e.a0 = a0;
  e.a1 = a1;
  e.mse = mse;
  e.mae = std::sqrt(mse);
  return e;
}

const std::vector<double> sizes = {2000, 3000, 4000, 5000};

TEST(Groups, MinimumErrorEquivalentsAndBest) {
  // The source's Table 1 (sequential, total time): min error 1.400e-6 n^2.97, best 1.070e-6 n^3.
  auto min = power(1.4e-6, 2.97, 1e-5, true);
  auto best = power(min(4000) / std::pow(4000, 3), 3, 2e-5);
  auto far = power(1e-3, 2, 1e-2);
  auto g = select_groups({far, best, min}, sizes, {});
  EXPECT_EQ(g.min_error.formula(), min.formula());
  ASSERT_EQ(g.equivalent.size(), 1u);
  EXPECT_EQ(g.equivalent[0].formula(), best.formula());
  EXPECT_EQ(g.best.formula(), best.formula());
  EXPECT_EQ(g.best.theta().text(), "Θ(n³)");
  EXPECT_EQ(g.candidates, 3);
}

TEST(Groups, TieBreakerIsTheSmallestSizeAboveTheDataWhereTheyDifferByTheThreshold) {
  auto min = power(1.4e-6, 2.97, 1e-5, true);
  auto cube = power(min(4000) / std::pow(4000, 3), 3, 2e-5);
  group_options o;
  o.budget = 1e30;
  auto g = select_groups({min, cube}, sizes, o);
  ASSERT_EQ(g.distinguishable.size(), 1u);
  const auto& t = g.distinguishable[0];
  ASSERT_TRUE(t.n);
  EXPECT_GT(*t.n, sizes.back());
  auto diff = [&](double n) { return std::abs(cube(n) / min(n) - 1); };
  EXPECT_GE(diff(*t.n), 0.05);
  EXPECT_LT(diff(*t.n / std::exp2(1.0 / 8) - 1), 0.05);  // the grid point before it is still within
  EXPECT_NEAR(t.cost, min(*t.n), 1e-9 * min(*t.n));
}

TEST(Groups, ATieBreakerBeyondTheBudgetIsNonDistinguishable) {
  auto min = power(1.4e-6, 2.97, 1e-5, true);
  auto cube = power(min(4000) / std::pow(4000, 3), 3, 2e-5);
  group_options o;
  o.budget = 60;  // the tie breaker needs hours at ~1e-6 n^3 seconds
  auto g = select_groups({min, cube}, sizes, o);
  EXPECT_TRUE(g.distinguishable.empty());
  ASSERT_EQ(g.non_distinguishable.size(), 1u);
  EXPECT_GT(g.non_distinguishable[0].cost, 60);
  o.cost = [](double) { return 1.0; };  // a caller's cost model decides instead
  EXPECT_EQ(select_groups({min, cube}, sizes, o).distinguishable.size(), 1u);
}

TEST(Groups, EquationsThatNeverDifferAreNonDistinguishable) {
  auto a = power(1, 2, 1e-5);
  auto b = power(1.01, 2, 2e-5);
  auto g = select_groups({a, b}, sizes, {});
  ASSERT_EQ(g.non_distinguishable.size(), 1u);
  EXPECT_FALSE(g.non_distinguishable[0].n);
}

TEST(Groups, ThresholdIsAnOption) {
  auto a = power(1, 2, 1e-5);
  auto b = power(1.03, 2, 2e-5);
  EXPECT_EQ(select_groups({a, b}, sizes, {}).equivalent.size(), 1u);
  group_options tight;
  tight.threshold = 0.02;
  EXPECT_TRUE(select_groups({a, b}, sizes, tight).equivalent.empty());
}

TEST(Groups, BestRules) {
  // c + a·log n against b·(log n)^0.5: equivalent. The literal rule counts c and takes the
  // single coefficient; parsimony counts EMA's coefficients, then prefers integer exponents.
  shape with_c{.a5 = 1, .constant = true};
  auto lin = equation::of(with_c);
  lin.a0 = 1, lin.c = 14, lin.mse = 1e-4, lin.mae = 0.01;
  shape root{.a5 = 0.5};
  auto sq = equation::of(root);
  sq.a0 = lin(1 << 14) / std::sqrt(14.0), sq.mse = 1.1e-4, sq.mae = 0.011;
  const std::vector<double> ns = {256, 1024, 4096, 16384, 65536};
  ASSERT_LT(max_relative_difference(sq, lin, ns), 0.05);
  group_options o;
  EXPECT_EQ(select_groups({lin, sq}, ns, o).best.theta().text(), "Θ(log n)");
  o.rule = best_rule::ema;
  EXPECT_EQ(select_groups({lin, sq}, ns, o).best.theta().text(), "Θ(log^0.5 n)");
}

TEST(Groups, NoCandidateThrows) { EXPECT_THROW(select_groups({}, sizes, {}), std::invalid_argument); }

}  // namespace
}  // namespace ema::fit
