// The fit of T(n, p) = W(n)/p + D(n) (analysis/scaling.hpp): the work and span recovered as
// classes from points at several processor counts, the verdicts, and what follows from the model
// and the measurements (speedup, efficiency, Karp–Flatt, parallelism, isoefficiency).
#include <cmath>
#include <gtest/gtest.h>
#include <random>

#include "analysis/scaling.hpp"

namespace ema::fit {
namespace {

/// T(n, p) at n = 2^lo..2^hi by 2 and p = 1, 2, 4, 8, 16, three replicates each with relative
/// noise `noise` (log-normal).
template <class F>
scaling_series make(F t, int lo, int hi, double noise, unsigned seed = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, noise);
  scaling_series s;
  for (int k = lo; k <= hi; k += 2)
    for (double p : {1.0, 2.0, 4.0, 8.0, 16.0})
      for (int r = 0; r < 3; ++r) s.add(std::exp2(k), p, t(std::exp2(k), p) * std::exp(z(rng)));
  return s;
}

TEST(Scaling, KarpFlattIsTheSerialFractionThatExplainsASpeedup) {
  // With a serial fraction f, S = 1 / (f + (1 - f)/p): Karp–Flatt gives f back at every p.
  for (double f : {0.0, 0.05, 0.2})
    for (double p : {2.0, 4.0, 16.0}) EXPECT_NEAR(karp_flatt(1 / (f + (1 - f) / p), p), f, 1e-12) << f << " " << p;
  EXPECT_NEAR(karp_flatt(4, 8), (0.25 - 0.125) / 0.875, 1e-12);
  EXPECT_TRUE(std::isnan(karp_flatt(1, 1)));  // no fraction on one processor
}

TEST(Scaling, AReductionsWorkAndSpanAreItsClasses) {
  // A parallel sum: n/p element additions, then a tree of log n levels: W Θ(n), D Θ(log n).
  const auto s = make([](double n, double p) { return 1e-9 * n / p + 1e-5 * std::log2(n); }, 12, 26, 0.02);
  const auto a = analyze_scaling(s);
  EXPECT_EQ(a.model().work.text(), "Θ(n)") << a.model().formula();
  ASSERT_TRUE(a.model().has_span) << a.model().formula();
  EXPECT_EQ(a.model().span.text(), "Θ(log n)") << a.model().formula();
  EXPECT_EQ(a.work_verdict.level, verdict_level::firm) << scaling_text(a);
  EXPECT_EQ(a.span_verdict.level, verdict_level::firm) << scaling_text(a);
  // W/D ∝ p at fixed efficiency: n / log n ∝ p, so W = n grows as p log p.
  ASSERT_TRUE(a.iso.exists);
  EXPECT_EQ(p_text(a.iso.growth), "Θ(p log p)");
  ASSERT_FALSE(a.iso.sizes.empty());
  // The n the model names for p = 16 holds efficiency 0.5 there: E = (W + D)/(W + 16 D).
  const auto [p, n] = a.iso.sizes.front();
  EXPECT_EQ(p, 16);
  const auto& m = a.model();
  EXPECT_NEAR((m.W(n) + m.D(n)) / (m.W(n) + p * m.D(n)), 0.5, 1e-6);
  // At the largest size, E ≥ 0.5 up to p = W/D + 2.
  const double hi = std::exp2(26);
  EXPECT_NEAR(a.p_half, m.W(hi) / m.D(hi) + 2, 1e-9 * a.p_half);
  EXPECT_GT(a.p_half, 100);  // 67 ms of work over 0.26 ms of span
  // The table: measured at the largest size at every p, speedups against p = 1.
  EXPECT_EQ(a.table_n, hi);
  ASSERT_EQ(a.rows.size(), 5u);
  EXPECT_EQ(a.rows[0].p, 1);
  EXPECT_DOUBLE_EQ(a.rows[0].speedup, 1);
  EXPECT_FALSE(a.rows[0].karp_flatt);
  for (const auto& r : a.rows) {
    EXPECT_NEAR(r.speedup, r.p, 0.15 * r.p) << r.p;  // nearly linear at 2^26
    EXPECT_DOUBLE_EQ(r.efficiency, r.speedup / r.p);
    EXPECT_DOUBLE_EQ(r.cost, r.p * r.measured);
    EXPECT_NEAR(r.predicted / r.measured, 1, 0.1);
  }
  ASSERT_TRUE(a.held_out_miss);
  EXPECT_LT(*a.held_out_miss, 0.1);
}

TEST(Scaling, AQuadraticWorkBesideALinearSpan) {
  // n² cells a sweep, divided among p, and n barriers (a wavefront): W Θ(n²), D Θ(n); to hold the
  // efficiency W/D = n must grow as p, so W as p².
  const auto s = make([](double n, double p) { return 1e-9 * n * n / p + 1e-7 * n; }, 6, 14, 0.02, 2);
  const auto a = analyze_scaling(s);
  EXPECT_EQ(a.model().work.text(), "Θ(n²)") << a.model().formula();
  EXPECT_EQ(a.model().span.text(), "Θ(n)") << a.model().formula();
  EXPECT_EQ(p_text(a.iso.growth), "Θ(p²)");
  EXPECT_EQ(a.work_verdict.level, verdict_level::firm) << scaling_text(a);
}

TEST(Scaling, ACostThatAllDividesHasNoSpan) {
  const auto s = make([](double n, double p) { return 1e-9 * n / p; }, 12, 24, 0.01, 3);
  const auto a = analyze_scaling(s);
  EXPECT_EQ(a.model().work.text(), "Θ(n)");
  EXPECT_FALSE(a.model().has_span) << a.model().formula();
  EXPECT_TRUE(std::isinf(a.parallelism));
  EXPECT_TRUE(std::isinf(a.p_half));
  EXPECT_NE(scaling_text(a).find("no part that p does not divide"), std::string::npos);
}

TEST(Scaling, ASpanAsLargeAsTheWorkHasNoIsoefficiency) {
  // Half the cost divides, half does not, both Θ(n): Amdahl's law at every n.
  const auto s = make([](double n, double p) { return 1e-9 * n / p + 1e-9 * n; }, 12, 24, 0.01, 4);
  const auto a = analyze_scaling(s);
  EXPECT_EQ(a.model().work.text(), "Θ(n)");
  EXPECT_EQ(a.model().span.text(), "Θ(n)");
  EXPECT_FALSE(a.iso.exists);
  EXPECT_NEAR(a.parallelism, 2, 0.2);
  // Karp–Flatt: the serial fraction 1/2 at every p.
  for (const auto& r : a.rows)
    if (r.karp_flatt) EXPECT_NEAR(*r.karp_flatt, 0.5, 0.05) << r.p;
}

TEST(Scaling, ACostOfTheProcessorsThemselvesIsAnOverheadInP) {
  // A scan with a fork and join whose cost grows as log p: Karp–Flatt rises with p (no serial part
  // explains it), the model names the overhead, and holding the efficiency needs W ∝ p log p.
  const auto s = make([](double n, double p) { return 1e-9 * n / p + 2e-5 * std::log2(p); }, 12, 20, 0.01, 6);
  const auto a = analyze_scaling(s);
  EXPECT_EQ(a.model().work.text(), "Θ(n)") << scaling_text(a);
  EXPECT_TRUE(a.model().overhead) << scaling_text(a);
  EXPECT_NEAR(a.model().o, 2e-5, 2e-6);
  ASSERT_TRUE(a.iso.exists);
  EXPECT_EQ(p_text(a.iso.growth), "Θ(p log p)");
  EXPECT_TRUE(std::isfinite(a.p_half));
  EXPECT_NEAR(efficiency_at(a, std::exp2(20), a.p_half), 0.5, 1e-6);
  double last = -1;
  for (const auto& r : a.rows)
    if (r.karp_flatt) {
      EXPECT_GT(*r.karp_flatt, last) << r.p;
      last = *r.karp_flatt;
    }
  EXPECT_NE(scaling_text(a).find("overhead:"), std::string::npos);
}

TEST(Scaling, SizesBelowTheCacheEdgeAreLeftOutWhenAsked) {
  // The cost per element doubles past n = 2^20 (a cache): fitted from there, W is Θ(n) and the
  // model predicts the largest size.
  const auto s = make([](double n, double p) { return (n > std::exp2(19) ? 2e-9 : 1e-9) * n / p + 1e-4; }, 12, 26, 0.01, 7);
  const auto a = analyze_scaling(s, {.from = std::exp2(20), .from_why = "past twice the L3"});
  EXPECT_EQ(a.data.sizes().front(), std::exp2(20));
  EXPECT_EQ(a.model().work.text(), "Θ(n)") << scaling_text(a);
  EXPECT_NE(scaling_text(a).find("fitted from n = 2^20: past twice the L3"), std::string::npos) << scaling_text(a);
}

TEST(Scaling, NoisyPointsLeaveTheClassesTentative) {
  // 40% scatter over three sizes: the data cannot tell n from n log n or the span's class.
  scaling_series s;
  std::mt19937_64 rng(9);
  std::normal_distribution<double> z(0, 0.4);
  for (double n : {1e4, 3e4, 1e5})
    for (double p : {1.0, 2.0}) s.add(n, p, (1e-9 * n / p + 1e-6) * std::exp(z(rng)));
  const auto a = analyze_scaling(s);
  EXPECT_NE(a.work_verdict.level, verdict_level::firm) << scaling_text(a);
  EXPECT_FALSE(a.work_verdict.reasons.empty());
}

TEST(Scaling, TheWorkExcludesASlowerW) {
  // Θ(n log n) work (a comparison sort) with 15% scatter: the data leave Θ(n) for W; the work does not.
  const auto s = make([](double n, double p) { return 1e-9 * n * std::log2(n) / p + 1e-5; }, 14, 22, 0.15, 5);
  const auto a = analyze_scaling(s, {.work = {[](double n) { return n * std::log2(n); }}});
  EXPECT_EQ(a.model().work.text(), "Θ(n log n)") << scaling_text(a);
  for (const auto& r : a.work_rivals) EXPECT_NE(r, "Θ(n)");
}

TEST(Scaling, OfWsTheDataCannotTellApartTheOneWithoutALogFactor) {
  // A scan bound by memory on 16 cores, 10% scatter over 2^26..2^30: n log n and n both predict it;
  // parsimony answers Θ(n) and keeps Θ(n log n) as not excluded.
  const auto s = make([](double n, double p) { return 6e-10 * n / p + 5e-11 * n; }, 26, 30, 0.10, 8);
  const auto a = analyze_scaling(s);
  EXPECT_EQ(a.model().work.text(), "Θ(n)") << scaling_text(a);
}

TEST(Scaling, BadDataIsRefusedNamingWhatIsWrong) {
  scaling_series s;
  for (double n : {1e3, 1e4})
    for (double p : {1.0, 2.0}) s.add(n, p, 1e-6 * n / p);
  EXPECT_THROW(analyze_scaling(s), std::invalid_argument);  // two sizes
  scaling_series one_p;
  for (double n : {1e3, 1e4, 1e5}) one_p.add(n, 4, 1e-6 * n);
  EXPECT_THROW(analyze_scaling(one_p), std::invalid_argument);
  auto bad = make([](double n, double p) { return 1e-9 * n / p; }, 10, 14, 0.01);
  bad.y[3] = 0;
  try {
    analyze_scaling(bad);
    FAIL() << "a zero value was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("values must be positive"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ema::fit
