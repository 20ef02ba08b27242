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

}  // namespace ema
