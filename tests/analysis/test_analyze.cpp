// The whole analysis of one series: validation with clear messages, the knee regime, and the JSON.
#include <cmath>
#include <gtest/gtest.h>

#include "analysis/analyze.hpp"

namespace ema::fit {
namespace {

TEST(Analyze, RejectsWhatCannotBeFitted) {
  series s;
  s.add(10, 1);
  s.add(20, 2);
  try {
    analyze(s);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "2 distinct sizes: a fit needs at least 3");
  }
  s.add(40, 0);
  try {
    analyze(s);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the value 0 at n = 40 is not positive"), std::string::npos);
  }
}

TEST(Analyze, KneeSplitsTheRegimes) {
  series s;
  for (int i = 0; i < 13; ++i) {
    const double n = std::exp2(8 + i);
    s.add(n, 1e-9 * std::max(n, 8192.0));
  }
  auto a = analyze(s);
  ASSERT_TRUE(a.knee);
  EXPECT_NEAR(std::log2(a.knee->where.n), 13, 0.2);
  EXPECT_EQ(a.knee->below.text(), "Θ(1)");
  EXPECT_EQ(a.knee->above.text(), "Θ(n)");
  EXPECT_EQ(a.groups.best.theta().text(), "Θ(n)");
  auto j = to_json(a);
  EXPECT_EQ(j["knee"]["below"]["text"], "Θ(1)");
  EXPECT_EQ(j["knee"]["above"]["text"], "Θ(n)");
}

TEST(Analyze, JsonHasEveryGroup) {
  series s;
  for (int i = 0; i < 8; ++i) s.add(1000 * (i + 1), 2e-9 * std::pow(1000.0 * (i + 1), 3) * (1 + 0.01 * (i % 3)));
  auto j = to_json(analyze(s));
  for (const char* k : {"best", "min_error", "equivalent", "distinguishable", "non_distinguishable", "knee",
                        "leading_exponent", "band", "held_out", "points", "sizes"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["best"]["theta"]["text"], "Θ(n³)");
  EXPECT_TRUE(j["knee"].is_null());
  for (const auto& d : j["distinguishable"]) EXPECT_TRUE(d.contains("tie_breaker"));
  EXPECT_EQ(j["points"].size(), 8u);
}

}  // namespace
}  // namespace ema::fit
