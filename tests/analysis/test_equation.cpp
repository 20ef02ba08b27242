// Equations of EMA's family: evaluation, coefficient counts, formulas and Θ classes as the source's
// Tables 1 and 2 print them.
#include <cmath>
#include <gtest/gtest.h>

#include "analysis/equation.hpp"

namespace ema::fit {
namespace {

equation make(double a0, double a1, double a5, bool free_a1 = false, bool free_a5 = false) {
  shape s{.a1 = std::round(a1 * 2) / 2, .a5 = std::round(a5 * 2) / 2, .free_a1 = free_a1, .free_a5 = free_a5};
  auto e = equation::of(s);
  e.a0 = a0;
  e.a1 = a1;
  e.a5 = a5;
  return e;
}

TEST(Equation, EvaluatesTheFamily) {
  auto e = make(2, 2, 1);
  EXPECT_NEAR(e(1024), 2 * 1024.0 * 1024 * 10, 1e-6);
  e.form.constant = true;
  e.c = 5;
  EXPECT_NEAR(e(1024), 2 * 1024.0 * 1024 * 10 + 5, 1e-6);
  shape x{.exp_term = true, .a3 = 1, .a4 = 0};
  auto p = equation::of(x);
  p.a0 = 3;
  p.a2 = 2;
  EXPECT_NEAR(p(10), 3 * 1024.0, 1e-9);
  EXPECT_NEAR(p.log_term(2000), std::log(3.0) + 2000 * std::log(2.0), 1e-9);  // finite where the value is not
}

TEST(Equation, CountsFittedCoefficientsOnly) {
  EXPECT_EQ(make(1, 3, 0).coefficient_count(), 1);           // 1.07e-06 · n^3
  EXPECT_EQ(make(1, 2.97, 0, true).coefficient_count(), 2);  // 1.40e-06 · n^2.97
  auto e = make(1, 1.5, 3);
  e.form.constant = true;
  EXPECT_EQ(e.coefficient_count(), 2);
  shape x{.exp_term = true, .constant = true};
  EXPECT_EQ(x.coefficient_count(), 3);
}

TEST(Equation, FormulasAndThetaClassesAsTheSourcePrintsThem) {
  auto free = make(1.4e-6, 2.97, 0, true);
  EXPECT_EQ(free.formula(), "1.400e-06 · n^2.97");
  EXPECT_EQ(free.theta().text(), "Θ(n³)");
  EXPECT_EQ(make(3.963e-7, 2, 0.5).formula(), "3.963e-07 · n^2 · log2(n)^0.5");
  EXPECT_EQ(make(3.963e-7, 2, 0.5).theta().text(), "Θ(n² log^0.5 n)");
  EXPECT_EQ(make(2.038e-3, 1, 3.5).theta().text(), "Θ(n log^3.5 n)");
  EXPECT_EQ(make(1, 1, 1).theta().text(), "Θ(n log n)");
  EXPECT_EQ(make(1, 1, 2).theta().text(), "Θ(n log² n)");
  EXPECT_EQ(make(1, 0.5, 0).theta().text(), "Θ(√n)");
  EXPECT_EQ(make(1, 1.5, 0).theta().text(), "Θ(n^1.5)");
  EXPECT_EQ(make(1, 0, 1).theta().text(), "Θ(log n)");
  EXPECT_EQ(make(1, 0, 0).theta().text(), "Θ(1)");
  auto c = make(1, 1, 0);
  c.form.constant = true;
  c.c = 2.5e-4;
  EXPECT_EQ(c.formula(), "1.000e+00 · n + 2.500e-04");
  shape x{.exp_term = true};
  auto p = equation::of(x);
  p.a2 = 2.0004;
  EXPECT_EQ(p.theta().text(), "Θ(2^n)");
  EXPECT_EQ(p.theta().exp_base, 2.0);
  x.a3 = 0.5;
  EXPECT_EQ(equation::of(x).formula(), "1.000e+00 · 1^(n^0.5)");
}

TEST(Equation, FallingTermWithAConstantIsConstant) {
  auto e = make(1, -1, 0, true);
  EXPECT_EQ(e.theta().text(), "Θ(n^-1)");
  e.form.constant = true;
  e.c = 1;
  EXPECT_EQ(e.theta().text(), "Θ(1)");
}

TEST(Equation, JsonCarriesTheSchemaFields) {
  auto j = make(1.4e-6, 2.97, 0, true).to_json();
  for (const char* k : {"formula", "coefficients", "theta", "mse", "max_rel_err", "count"}) EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["theta"]["n"], 3.0);
  EXPECT_EQ(j["theta"]["log"], 0.0);
  EXPECT_TRUE(j["theta"]["exp"].is_null());
  EXPECT_EQ(j["theta"]["text"], "Θ(n³)");
  EXPECT_EQ(j["count"], 2);
}

TEST(Equation, ParsesAClassAsAReaderWritesIt) {
  auto is = [](const std::string& text, double n, double log) {
    const auto c = parse_theta(text);
    EXPECT_EQ(c.n, n) << text;
    EXPECT_EQ(c.log, log) << text;
  };
  is("1", 0, 0);
  is("log n", 0, 1);
  is("n", 1, 0);
  is("n log n", 1, 1);
  is("n^2", 2, 0);
  is("n ^ 1.5 log^2 n", 1.5, 2);
  is("sqrt n", 0.5, 0);
  is("√n", 0.5, 0);
  for (const char* bad : {"", "n^", "2^n", "n log", "m", "n^-1", "log^ n"}) EXPECT_THROW(parse_theta(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace ema::fit
