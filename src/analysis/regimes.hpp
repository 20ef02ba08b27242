// Regimes of the memory hierarchy. A time measured over n bends where the working set outgrows a
// cache: a scan costs one cache's bandwidth per byte below its capacity and the next level's above
// it, so in log-log space the curve is a line, a steeper stretch, and a line again higher up. EMA
// fits one family of equations to the data (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2); fitted across a
// cache's edge, the bend passes for a log factor or a larger exponent. So ema finds the breakpoints
// of the log-log curve (a continuous piecewise-linear fit, breakpoints added one at a time while
// each explains the data far better than the fit without it), names each one whose working set
// (from the problem's work model) is near a cache's capacity ("L2 (50 MiB) filled at
// n ≈ 1.3e+07"), and the fit describes the last regime, past the last cache edge, when it holds
// enough sizes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/fit.hpp"

namespace ema::fit {

/// A level of the memory hierarchy a variant's data pass through.
struct memory_level {
  std::string name;  ///< "L1d", "L2", "L3", "GPU L2"
  double bytes = 0;
};

struct breakpoint_options {
  int max_breakpoints = 3;
  int min_sizes_per_segment = 3;
  double min_f = 20;       ///< F statistic a new breakpoint must reach against the fit without it
  double min_bend = 0.25;  ///< change of log-log slope a breakpoint must make
};

struct breakpoint {
  double n = 0;  ///< where the slope changes
  double slope_below = 0, slope_above = 0;
  std::string cache;  ///< the cache whose edge it is, when one matches
  double cache_bytes = 0;
  double working_set = 0;  ///< bytes at n, when the work model is known (0: unknown)
  /// "L2 (50 MiB) filled at n ≈ 1.3e+07 (working set 48 MiB)", or "slope 1.02 → 1.84 at n ≈ ...".
  std::string text() const;
};

/// The breakpoints of the series' log-log curve, ascending (none for fewer than 9 sizes).
std::vector<breakpoint> find_breakpoints(const series& data, const breakpoint_options& options = {});

/// Names each breakpoint whose working set lies within a factor of 2 of a cache's capacity (the
/// nearest in log). `caches` ascending; `working_set` the bytes at n.
void name_breakpoints(std::vector<breakpoint>& points, const std::vector<memory_level>& caches, const std::function<double(double)>& working_set);

/// The smallest n whose working set reaches `bytes` (bisection over [1, 2^62]); 0 when none does.
double size_for_working_set(const std::function<double(double)>& working_set, double bytes);

}  // namespace ema::fit
