// Seeded synthetic series of known complexity class, for the fitting accuracy target of the
// analysis engine: lognormal noise of 1% to 10%, a constant overhead of 0 to 10 times the smallest
// size's cost (none for a fifth of them), 13 sizes doubling from 2^8 and 5 replicates per size. 2^n cannot be evaluated at
// n = 2^20 in double precision, so exponential series use 13 sizes 8, 10, ..., 32 instead. Knee
// series are flat then linear, T = a · max(n, k), with k between 2^10.5 and 2^15.5.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/equation.hpp"
#include "analysis/fit.hpp"

namespace ema::test {

struct synthetic_class {
  std::string name;
  fit::theta_class theta;  ///< the class the best equation must have (above the knee for knees)
  double (*cost)(double n);
  bool exponential = false;
  bool knee = false;
};

inline const std::vector<synthetic_class>& synthetic_classes() {
  using fit::theta_class;
  static const std::vector<synthetic_class> classes = {
      {"1", theta_class{}, [](double) { return 1.0; }},
      {"log n", theta_class{0, 1}, [](double n) { return std::log2(n); }},
      {"√n", theta_class{0.5, 0}, [](double n) { return std::sqrt(n); }},
      {"n", theta_class{1, 0}, [](double n) { return n; }},
      {"n log n", theta_class{1, 1}, [](double n) { return n * std::log2(n); }},
      {"n log² n", theta_class{1, 2}, [](double n) { return n * std::pow(std::log2(n), 2); }},
      {"n^1.5", theta_class{1.5, 0}, [](double n) { return std::pow(n, 1.5); }},
      {"n²", theta_class{2, 0}, [](double n) { return n * n; }},
      {"n² log n", theta_class{2, 1}, [](double n) { return n * n * std::log2(n); }},
      {"n³", theta_class{3, 0}, [](double n) { return n * n * n; }},
      {"2^n", theta_class{0, 0, 2.0, 1, 0}, [](double n) { return std::exp2(n); }, true},
      {"knee", theta_class{1, 0}, [](double n) { return n; }, false, true},
  };
  return classes;
}

struct synthetic_series {
  fit::series data;
  double knee = 0;  ///< the true knee (knee series only)
  double noise = 0, overhead = 0;
};

inline synthetic_series make_synthetic(const synthetic_class& c, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u01(0, 1);
  std::normal_distribution<double> z(0, 1);
  synthetic_series s;
  s.noise = 0.01 + 0.09 * u01(rng);
  std::vector<double> sizes;
  for (int i = 0; i < 13; ++i) sizes.push_back(c.exponential ? 8.0 + 2 * i : std::exp2(8 + i));
  const double scale = std::exp2(-30 + 20 * u01(rng));  // the unit of time does not matter
  if (c.knee)
    s.knee = std::exp2(10.5 + 5 * u01(rng));
  else if (u01(rng) >= 0.2)
    s.overhead = 10 * u01(rng) * c.cost(sizes.front());  // a fifth have none
  for (double n : sizes) {
    const double truth = c.knee ? std::max(n, s.knee) : s.overhead + c.cost(n);
    for (int r = 0; r < 5; ++r) s.data.add(n, scale * truth * std::exp(s.noise * z(rng)));
  }
  return s;
}

}  // namespace ema::test
