// Order statistics of repeated samples: the median that tables quote, and the relative
// standard error of that median, which decides when a point has enough repetitions.
#pragma once

#include <cstddef>
#include <span>
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

}  // namespace ema
