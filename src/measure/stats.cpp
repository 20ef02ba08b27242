#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ema {

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  double hi = *mid;
  if (v.size() % 2) return hi;
  double lo = *std::max_element(v.begin(), mid);
  return (lo + hi) / 2;
}

sample_summary summarize(std::span<const double> s) {
  sample_summary r;
  r.count = s.size();
  if (s.empty()) return r;
  auto [lo, hi] = std::minmax_element(s.begin(), s.end());
  r.min = *lo;
  r.max = *hi;
  r.median = median({s.begin(), s.end()});
  r.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  if (s.size() > 1) {
    double ss = 0;
    for (double x : s) ss += (x - r.mean) * (x - r.mean);
    r.stddev = std::sqrt(ss / static_cast<double>(s.size() - 1));
  }
  return r;
}

double median_rse(std::span<const double> s) {
  if (s.size() < 3) return std::numeric_limits<double>::infinity();
  double m = median({s.begin(), s.end()});
  if (m == 0) return std::numeric_limits<double>::infinity();
  std::vector<double> dev;
  dev.reserve(s.size());
  for (double x : s) dev.push_back(std::abs(x - m));
  double sigma = 1.4826 * median(std::move(dev));
  return 1.2533 * sigma / std::sqrt(static_cast<double>(s.size())) / std::abs(m);
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double at = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(at);
  return i + 1 < v.size() ? v[i] + (at - static_cast<double>(i)) * (v[i + 1] - v[i]) : v[i];
}

std::size_t count_outliers(std::span<const double> s) {
  if (s.size() < 5) return 0;
  const double m = median({s.begin(), s.end()});
  std::vector<double> dev;
  dev.reserve(s.size());
  for (double x : s) dev.push_back(std::abs(x - m));
  double mad = median(dev);
  if (!(mad > 0)) mad = std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(m));
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [&](double x) { return std::abs(x - m) / mad > 10 * 1.4826; }));
}

std::pair<double, double> median_ratio_interval(std::span<const double> a, std::span<const double> b, int resamples, std::mt19937_64& rng) {
  const double ma = median({a.begin(), a.end()}), mb = median({b.begin(), b.end()});
  const double ratio = mb / ma;
  if (a.size() < 2 || b.size() < 2 || resamples <= 0) return {ratio, ratio};
  std::vector<double> ratios, ra(a.size()), rb(b.size());
  std::uniform_int_distribution<std::size_t> pick_a(0, a.size() - 1), pick_b(0, b.size() - 1);
  for (int r = 0; r < resamples; ++r) {
    for (auto& x : ra) x = a[pick_a(rng)];
    for (auto& x : rb) x = b[pick_b(rng)];
    if (const double m = median(ra); m > 0) ratios.push_back(median(rb) / m);
  }
  if (ratios.empty()) return {ratio, ratio};
  std::sort(ratios.begin(), ratios.end());
  return {ratios[static_cast<std::size_t>(0.025 * static_cast<double>(ratios.size() - 1))],
          ratios[static_cast<std::size_t>(0.975 * static_cast<double>(ratios.size() - 1))]};
}

}  // namespace ema
