// The roofline (issue 31, item 3; after Williams, Waterman and Patterson, "Roofline: an insightful
// visual performance model for multicore architectures", CACM 52(4), 2009): each variant's points
// placed by their arithmetic intensity (the work model's operations over its bytes: the fewest bytes
// any algorithm must move, so an upper bound of the intensity a variant runs at) and the rate they
// achieved (operations over the kernel time, else the total), under the roofs of the back end that
// ran them: the probed memory bandwidth times the intensity, capped by the probed FMA throughput
// where the operations are floating-point arithmetic (problem_desc::flops). A reader sees which
// variant is bound by what, and how far below its roof it runs.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "report/grid.hpp"
#include "report/svg_chart.hpp"
#include "report/view.hpp"

namespace ema {

/// One back end's roofs, as the experiment's probe measured them.
struct roof {
  std::string backend;              ///< seq, omp, cuda, multi-gpu
  std::string name;                 ///< "CPU, 1 thread", "GPU"
  double bandwidth = std::nan("");  ///< bytes per second
  std::string bandwidth_ceiling;    ///< its probed ceiling's name
  double peak = std::nan("");       ///< operations per second where they are flops; NaN: no compute roof
  std::string peak_ceiling;

  /// The rate the roofs allow at `intensity` operations per byte.
  double attainable(double intensity) const { return std::isfinite(peak) ? std::min(bandwidth * intensity, peak) : bandwidth * intensity; }
  /// Whether the memory roof is the lower at `intensity`.
  bool memory_bound(double intensity) const { return !(std::isfinite(peak) && peak < bandwidth * intensity); }
};

/// A variant at one size, its input instances pooled.
struct roofline_point {
  std::string variant;
  std::uint64_t n = 0;
  double intensity = 0;        ///< operations (flops where declared) per byte of the work model
  double achieved = 0;         ///< operations per second
  std::size_t roof_index = 0;  ///< its back end's, in roofline::roofs

  double fraction(const std::vector<roof>& roofs) const { return achieved / roofs[roof_index].attainable(intensity); }
};

struct roofline {
  std::string problem, params_json;
  std::string unit;  ///< what is counted: "FLOP" where the operations are floating-point, else the problem's op_unit
  std::vector<roof> roofs;
  std::vector<roofline_point> points;
  std::vector<std::string> missing;  ///< why a roof, or a variant, is not drawn

  bool empty() const { return points.empty(); }
};

/// The roofline of one problem and parameter set of an experiment. Empty (with `missing` saying
/// why) for a program ema does not know (`ema exec`), a problem without a work model, or an
/// experiment whose probe measured no ceiling for the back ends that ran.
roofline roofline_of(const experiment_view& v, const std::string& problem, const std::string& params_json);

/// The chart: roofs as grey lines named at their right end, points coloured by `color(variant)`.
chart roofline_chart(const roofline& r, const std::function<int(const std::string&)>& color);

/// Per variant at its largest size that ran: the intensity, the rate achieved, the roof's rate at
/// that intensity, the fraction of it, and what bounds it there (memory or compute); with notes on
/// what the chart leaves out and on points above their roof.
std::string render_roofline(const roofline& r, table_style style);

}  // namespace ema
