// The saturation knee of Nobre et al., 001_9fea77a744af8951.txt (section 4, Figures 3 and 4): a metric that is
// flat, or grows slowly, up to some n and then grows, as a GPU kernel's time does once the
// device's concurrent threads are used up. Found by a continuous two-segment fit in log-log space,
//     ln T = α + β1 ln n + β2 max(0, ln n - ln k),
// over breakpoints k on a grid of 16 per octave; a knee is reported when the segment below is flat
// or slow (|β1| <= max_slope_below), the slope rises by at least min_bend (β2), the bend explains
// the data far better than one straight line (an F statistic of at least min_f), and enough
// sizes lie on each side. A start that is not flat (|β1| above slow_below, up to a linear one: a
// kernel launched once a step, each launch's latency setting the step's time until its work fills
// the device) is a knee only where the slope rises by min_bend_after_slow at least and to no more
// than max_slope_after_slow: a GPU elimination's n launches under its n³ work (gauss cuda-kv1/kv2,
// slope 1 then 3) are one, a smooth bend from n to n² or an exponential's ever-rising slope is not
// (docs/fitting.md, 2026-12-02 (later)).
#pragma once

#include <optional>

#include "analysis/fit.hpp"

namespace ema::fit {

struct knee_options {
  double max_slope_below = 1.1;      ///< the start's slope at most (a linear start, with its noise)
  double min_bend = 0.5;             ///< the rise of the slope at the knee at least
  double slow_below = 0.5;           ///< a start steeper than this is slow, not flat:
  double min_bend_after_slow = 1.5;  ///< after it the slope must rise this much
  double max_slope_after_slow = 5;   ///< and to no more than this
  double min_f = 20;
  int min_below = 2;  ///< measured sizes at or below the knee
  int min_above = 4;  ///< measured sizes at or above the knee
};

struct knee {
  double n = 0;  ///< where the slope changes
  double slope_below = 0, slope_above = 0;
};

std::optional<knee> find_knee(const series& data, const knee_options& options = {});

}  // namespace ema::fit
