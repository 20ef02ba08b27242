// Weak scaling (analysis/weak_scaling.hpp) and the normal form in n and p
// (analysis/normal_form.hpp): the efficiency at a fixed share per processor, the class of the time
// in p, and Extra-P's terms recovered from points made by a known T(n, p).
#include <cmath>
#include <gtest/gtest.h>
#include <random>

#include "analysis/normal_form.hpp"
#include "analysis/scaling.hpp"
#include "analysis/weak_scaling.hpp"

namespace ema::fit {
namespace {

/// A weak-scaling chain: n0·p at p = 1, 2, 4, 8, 16, three replicates with relative noise.
template <class F>
std::vector<weak_point> chain(F t, double n0, double noise, unsigned seed = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, noise);
  std::vector<weak_point> out;
  for (double p : {1.0, 2.0, 4.0, 8.0, 16.0})
    for (int r = 0; r < 3; ++r) out.push_back({p, n0 * p, t(n0 * p, p) * std::exp(z(rng))});
  return out;
}

TEST(WeakScaling, AFlatTimeIsPerfectWeakScaling) {
  // A scan: n/p per processor, the same share at every p: the time stays, E_w = 1, S_w = p.
  const auto a = analyze_weak(chain([](double n, double p) { return 1e-9 * n / p; }, 1 << 20, 0.01), nullptr, NAN);
  EXPECT_EQ(p_text(a.answer().growth), "Θ(1)") << weak_text(a);
  ASSERT_EQ(a.rows.size(), 5u);
  EXPECT_EQ(a.base_p, 1);
  EXPECT_EQ(a.n0, 1 << 20);
  for (const auto& r : a.rows) {
    EXPECT_NEAR(r.efficiency, 1, 0.05) << r.p;
    EXPECT_NEAR(r.scaled_speedup, r.p, 0.05 * r.p);
    EXPECT_DOUBLE_EQ(r.work_ratio, r.p);  // n itself, without a work model
  }
}

TEST(WeakScaling, AReductionAcrossPGrowsAsLogP) {
  // The same share, then a tree of log2 p combining steps that costs as much as the share at p = 16.
  const auto a = analyze_weak(chain([](double n, double p) { return 1e-9 * n / p + 2.5e-4 * std::log2(p); }, 1 << 20, 0.005), nullptr, NAN);
  EXPECT_EQ(p_text(a.answer().growth), "Θ(log p)") << weak_text(a);
  EXPECT_LT(a.rows.back().efficiency, 0.6);
  EXPECT_GT(a.rows.back().efficiency, 0.4);
  EXPECT_NE(weak_text(a).find("the time grows as Θ(log p)"), std::string::npos) << weak_text(a);
  const auto j = to_json(a);
  EXPECT_EQ(j["growth"], "Θ(log p)");
  EXPECT_EQ(j["rows"].size(), 5u);
}

TEST(WeakScaling, TheWorkModelCorrectsASizeNotGrownByTheWork) {
  // Gaussian elimination's n³: a plan that doubled n with p would give each processor p² times the
  // share; measured against its work, perfectly parallel elimination is still efficiency 1.
  std::vector<weak_point> pts;
  for (double p : {1.0, 2.0, 4.0}) pts.push_back({p, 1000 * p, 1e-9 * std::pow(1000 * p, 3) / p});
  const auto a = analyze_weak(
      pts, [](double n) { return n * n * n; }, NAN);
  for (const auto& r : a.rows) EXPECT_NEAR(r.efficiency, 1, 1e-9) << r.p;
  EXPECT_DOUBLE_EQ(a.rows.back().work_ratio, 64);
  EXPECT_FALSE(a.notes.empty());  // the work is 64×, not 4×: said
  EXPECT_NE(a.notes.front().find("at p = 2 the work is 8 times"), std::string::npos) << a.notes.front();
}

TEST(WeakScaling, RefusesWhatIsNotAWeakScalingSeries) {
  EXPECT_THROW(analyze_weak({{1, 100, 1}, {1, 100, 1.1}}, nullptr, NAN), std::invalid_argument);             // one count
  EXPECT_THROW(analyze_weak({{1, 100, 1}, {2, 200, 1}, {2, 300, 1}}, nullptr, NAN), std::invalid_argument);  // two sizes at p = 2
  EXPECT_THROW(analyze_weak({{1, 100, 1}, {2, 200, 0}}, nullptr, NAN), std::invalid_argument);               // not positive
  EXPECT_THROW(analyze_weak({{1, 100, 1}, {2, 200, NAN}}, nullptr, NAN), std::invalid_argument);
}

/// T(n, p) at n = 2^12..2^24 by 2, p = 1..16 by doubling, two replicates.
template <class F>
scaling_series grid(F t, double noise) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z(0, noise);
  scaling_series s;
  for (int k = 12; k <= 24; k += 2)
    for (double p : {1.0, 2.0, 4.0, 8.0, 16.0})
      for (int r = 0; r < 2; ++r) s.add(std::exp2(k), p, t(std::exp2(k), p) * std::exp(z(rng)));
  return s;
}

TEST(NormalForm, FindsTheTermsOfAWorkAndASpan) {
  // W = n divided among p, D = n^0.5 beside it: Extra-P's terms n·p^-1 and n^1/2.
  const auto f = fit_normal_form(grid([](double n, double p) { return 1e-9 * n / p + 2e-7 * std::sqrt(n); }, 0.005));
  ASSERT_EQ(f.best.terms.size(), 2u) << f.best.formula();
  EXPECT_EQ(f.best.terms[0].text(), "n · p^-1") << f.best.formula();
  EXPECT_EQ(f.best.terms[1].text(), "n^1/2") << f.best.formula();
  EXPECT_NEAR(f.best.terms[0].coef, 1e-9, 5e-11);
  EXPECT_LT(std::sqrt(f.best.cv), 0.02);
  EXPECT_NE(f.best.formula().find("· n · p^-1"), std::string::npos) << f.best.formula();
  // The held-out errors are sorted; the best is the first.
  for (std::size_t i = 1; i < f.hypotheses.size(); ++i) EXPECT_LE(f.hypotheses[i - 1].cv, f.hypotheses[i].cv);
  // No hypothesis cancels one part against another: every coefficient is a non-negative part of the
  // cost (here the true constant is 0, so the least-squares c0 is as often a little below 0: such
  // a hypothesis is refitted without its constant, not dropped).
  for (const auto& h : f.hypotheses) {
    EXPECT_GE(h.c0, 0) << h.formula();
    for (const auto& t : h.terms) EXPECT_GE(t.coef, 0) << h.formula();
  }
}

TEST(NormalForm, APerfectlyDividedCostIsOneTerm) {
  const auto f = fit_normal_form(grid([](double n, double p) { return 2e-9 * n * std::log2(n) / p; }, 0.002));
  ASSERT_FALSE(f.best.terms.empty());
  EXPECT_EQ(f.best.terms[0].text(), "n · log2(n) · p^-1") << f.best.formula();
}

TEST(NormalForm, IsReportedBesideTheWorkSpanModel) {
  const auto a = analyze_scaling(grid([](double n, double p) { return 1e-9 * n / p + 2e-7 * std::sqrt(n); }, 0.005));
  ASSERT_TRUE(a.pmnf.has_value());
  const auto text = scaling_text(a);
  EXPECT_NE(text.find("normal form (Extra-P's"), std::string::npos) << text;
  EXPECT_TRUE(to_json(a)["normal_form"].contains("formula"));
}

TEST(NormalForm, RefusesTooFewPoints) {
  scaling_series s;
  s.add(100, 1, 1), s.add(200, 1, 2), s.add(100, 2, 0.5), s.add(200, 2, 1);
  EXPECT_THROW(fit_normal_form(s), std::invalid_argument);  // two sizes
}

}  // namespace
}  // namespace ema::fit
