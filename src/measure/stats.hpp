// Order statistics of repeated samples: the median that tables quote, and the relative
// standard error of that median, which decides when a point has enough repetitions.
#pragma once

#include <cstddef>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace ema {

struct sample_summary {
  std::size_t count = 0;
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;
};

sample_summary summarize(std::span<const double> samples);

double median(std::vector<double> values);

/// Relative standard error of the median: SE ≈ 1.2533 · σ̂ / √k with the robust σ̂ = 1.4826 · MAD,
/// divided by the median. Infinite for fewer than 3 samples or a zero median.
double median_rse(std::span<const double> samples);

/// The q-quantile (0 <= q <= 1) by linear interpolation between order statistics; NaN when empty.
double quantile(std::vector<double> values, double q);

/// How many samples lie more than 10 robust standard deviations (1.4826 · MAD) from the median:
/// the modified z-score rule of Iglewicz and Hoaglin, at the threshold hyperfine warns at. A
/// disturbance (another process, a preempted thread) shows as such an outlier. Fewer than 5
/// samples cannot show a spread to stand out of: none.
std::size_t count_outliers(std::span<const double> samples);

/// The 95% bootstrap interval of median(b) / median(a), each resampled with replacement
/// `resamples` times; {ratio, ratio} when either has one sample.
std::pair<double, double> median_ratio_interval(std::span<const double> a, std::span<const double> b, int resamples, std::mt19937_64& rng);

}  // namespace ema
