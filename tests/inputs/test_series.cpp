// Time series inputs: the generated systems, the file reader and the check for an orbit that finite
// precision has collapsed onto a fixed point or a cycle.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <numeric>

#include "core/errors.hpp"
#include "inputs/series.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

std::string error_of(const std::string& path, const std::string& column = "") {
  try {
    read_series(path, column);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Series, LogisticMapFromTheSourcesStart) {
  auto x = generate_series("logistic", 4, 1);
  ASSERT_EQ(x.size(), 4u);
  EXPECT_DOUBLE_EQ(x[0], 0.4);
  EXPECT_DOUBLE_EQ(x[1], 4 * 0.4 * 0.6);
  EXPECT_DOUBLE_EQ(x[2], 4 * x[1] * (1 - x[1]));
  EXPECT_DOUBLE_EQ(x[3], 4 * x[2] * (1 - x[2]));
  EXPECT_FALSE(degenerate_orbit(generate_series("logistic", 100000, 1)).has_value());
}

TEST(Series, ExactLogisticOrbitFollowsTheMapAndNeverCollapses) {
  // Every step obeys x' = 4 x (1 - x) to rounding (the values are computed independently, from
  // the conjugacy), far past where the iterated double orbit has collapsed to 0.
  const std::size_t n = 1 << 16;
  for (std::uint64_t start : {0ull, 40000000ull}) {
    auto x = generate_series("logistic-exact", start + n, 7);
    double worst = 0, mean = 0;
    for (std::size_t i = start; i + 1 < start + n; ++i) {
      worst = std::max(worst, std::abs(x[i + 1] - 4 * x[i] * (1 - x[i])));
      mean += x[i];
    }
    EXPECT_LT(worst, 1e-12) << start;
    EXPECT_NEAR(mean / (n - 1), 0.5, 0.01) << start;  // the invariant density's mean
    // Its arcsine law: P(x < 1/4) = 1/3.
    const auto low = std::count_if(x.begin() + static_cast<std::ptrdiff_t>(start), x.end(), [](double v) { return v < 0.25; });
    EXPECT_NEAR(static_cast<double>(low) / n, 1.0 / 3.0, 0.01) << start;
    EXPECT_FALSE(degenerate_orbit(std::span<const double>(x).subspan(start))) << start;
  }
  EXPECT_NE(generate_series("logistic-exact", 100, 1), generate_series("logistic-exact", 100, 2));  // seeded
  EXPECT_EQ(generate_series("logistic-exact", 100, 1), generate_series("logistic-exact", 100, 1));
}

TEST(Series, NoiseIsUniformAndSeeded) {
  auto a = generate_series("noise", 100000, 7), b = generate_series("noise", 100000, 7), c = generate_series("noise", 100000, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const double mean = std::accumulate(a.begin(), a.end(), 0.0) / 100000;
  double var = 0;
  for (double v : a) var += (v - mean) * (v - mean);
  var /= 100000;
  EXPECT_NEAR(mean, 0.5, 0.005);
  EXPECT_NEAR(var, 1.0 / 12, 0.002);
  EXPECT_FALSE(degenerate_orbit(a).has_value());
}

TEST(Series, SineAndRossler) {
  auto s = generate_series("sine", 250, 1);
  EXPECT_NEAR(s[25], 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(s[0], s[100]);
  auto r = generate_series("rossler", 20000, 1);
  const auto [lo, hi] = std::minmax_element(r.begin(), r.end());
  EXPECT_LT(*lo, -5);  // the attractor's x spans about [-9, 11]
  EXPECT_GT(*hi, 5);
  EXPECT_GT(*lo, -15);
  EXPECT_LT(*hi, 15);
  EXPECT_FALSE(degenerate_orbit(r).has_value());
  EXPECT_THROW(generate_series("lorenz", 10, 1), usage_error);
}

TEST(Series, FiniteOrbitsThatCollapseAreNamed) {
  // In float the r = 4 logistic orbit from 0.4 falls into a cycle of 4344 values at step 134.
  auto f = logistic_orbit<float>(200000, 0.4f);
  std::vector<double> wide(f.begin(), f.end());
  auto why = degenerate_orbit(wide);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("cycle of period 4344 at step 134 of 200000"), std::string::npos) << *why;
  // A fixed point reached exactly, as the double orbit does near step 1.5e7.
  std::vector<double> x = generate_series("logistic", 5000, 1);
  x.resize(6000, 0.0);
  why = degenerate_orbit(x);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("fixed point 0 at step 5000 of 6000"), std::string::npos) << *why;
  // A cycle of period 3 from step 4000.
  std::vector<double> y = generate_series("noise", 4000, 3);
  for (int k = 0; k < 3000; ++k) y.push_back(0.1 * (k % 3 + 1));
  why = degenerate_orbit(y);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("cycle of period 3 at step 4000"), std::string::npos) << *why;
}

TEST(Series, ReadsOneColumnAndCsv) {
  test::temp_dir dir;
  const auto plain = dir.file("x.txt"), csv = dir.file("x.csv");
  std::ofstream(plain) << "# a comment\n0.5\n\n-1.25e-1\n3\n";
  EXPECT_EQ(read_series(plain, ""), (std::vector<double>{0.5, -0.125, 3}));
  std::ofstream(csv) << "t,x,y\n0,1.5,2\n1,2.5,3\n2,3.5,4\n";
  EXPECT_EQ(read_series(csv, "y"), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(read_series(csv, "2"), (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(read_series(csv, ""), (std::vector<double>{0, 1, 2}));
}

TEST(Series, MalformedOrShortFilesNameTheLine) {
  test::temp_dir dir;
  const auto bad = dir.file("bad.txt"), shortf = dir.file("short.txt"), csv = dir.file("c.csv");
  std::ofstream(bad) << "1\n2\nabc\n4\n";
  EXPECT_NE(error_of(bad).find("bad.txt:3: 'abc' is not a finite number"), std::string::npos) << error_of(bad);
  std::ofstream(shortf) << "1\n";
  EXPECT_NE(error_of(shortf).find("1 values, too short"), std::string::npos) << error_of(shortf);
  std::ofstream(csv) << "a,b\n1,2\n3\n";
  EXPECT_NE(error_of(csv, "b").find("c.csv:3: column 2 is missing"), std::string::npos) << error_of(csv, "b");
  EXPECT_NE(error_of(csv, "z").find("c.csv:1: no column named 'z'"), std::string::npos) << error_of(csv, "z");
  EXPECT_NE(error_of(dir.file("none.txt")).find("cannot be read"), std::string::npos);
  std::ofstream(bad) << "1\nnan\n";
  EXPECT_NE(error_of(bad).find("bad.txt:2: 'nan' is not a finite number"), std::string::npos) << error_of(bad);
}

}  // namespace
}  // namespace ema
