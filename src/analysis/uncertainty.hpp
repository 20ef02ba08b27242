// What EMA does not give: how sure a fitted growth is.
//   - bootstrap: the data are resampled (the replicates within each size when some size has two or
//     more, else the relative residuals of the fit), and each resample refitted twice: with the
//     best equation's leading exponent freed (the exponent of n, or the base of its exponential
//     term), for a 95% percentile interval of that exponent; and with the best equation's own
//     shape, for a 95% band around its curve.
//   - held-out check: the largest sizes (a fifth of them, at least one) are left out, the whole
//     selection is run on the rest, and its best equation's prediction at the left-out sizes is
//     compared with what was measured there.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/fit.hpp"

namespace ema::fit {

struct exponent_interval {
  std::string what;  ///< "exponent of n" or "base of the exponential term"
  double estimate = 0, lo = 0, hi = 0;
  int resamples = 0;  ///< resamples whose refit succeeded
};

struct band_point {
  double n = 0, lo = 0, hi = 0;
};

struct bootstrap_result {
  std::optional<exponent_interval> interval;
  std::vector<band_point> band;
};

/// `band_sizes`: where the band is evaluated.
bootstrap_result bootstrap(const series& data, const equation& best, int resamples, std::uint64_t seed, const std::vector<double>& band_sizes);

struct held_out_point {
  double n = 0, predicted = 0, measured = 0, rel_err = 0;
};

struct held_out_check {
  equation best;  ///< the best equation of the data without the largest sizes
  std::vector<held_out_point> points;
  double max_rel_err = 0;
};

/// Needs at least 6 sizes; `select_best` runs the whole selection on a subset of the data.
std::optional<held_out_check> held_out(const series& data, const std::function<equation(const series&)>& select_best);

}  // namespace ema::fit
