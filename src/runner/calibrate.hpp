// EMA's calibration (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2): with a time budget instead of fixed
// sizes, the sizes are chosen by the tool. Per variant, sizes start small and grow geometrically;
// before each new size the point's wall time and memory are predicted from the points so far, and
// growth stops before a point (with the fill it would then need) would exceed the variant's share
// of the budget, before its memory would exceed what is free (host memory, or device memory for a
// GPU variant), before it would outlast the per-point timeout, or once a point fails. The range is
// then filled with the geometric midpoints of its widest gaps so that every variant has at least
// `min_sizes` sizes spread evenly in log n. A budget too small for `min_sizes` points of the cheapest
// cost grows as wide as it can instead and fills what it then affords; so does a track whose sizes
// span less than a factor of 4, while its next point alone fits (no fill makes so narrow a range
// worth fitting: seven GPU sorts of a 60 s H200 sweep had stopped at their first size).
//
// Prediction of a point's wall time at a larger n: each point's wall time is split into its runs
// (warm-up, timed repetitions, energy window: policy-driven, so predicted from the per-run time
// extrapolated as a local power law of the last two points, slope clamped to [0, 4]) and the rest
// (process start, input generation, reference answer: extrapolated the same way, slope clamped to
// [0, 3]). Memory is extrapolated as a power law with an exponent of at least 1.
//
// A flat stretch tells nothing of the class (issue 29): where a point's run time grew less than
// √n over each of the last two steps (a GPU kernel's launch-bound start, a thread pool's
// start-up), growth takes `flat_growth` (4×) per step instead of `growth`, and the fill measures a
// gap by how much the run time changes across it (at least a quarter of its width in log n)
// rather than by its width in log n alone: the sizes go where the cost grows, which is where a
// class shows (the 60 s calibrated GPU sorts on an H200 had 4-5 of their 13 sizes past the
// launch-bound start near 2-3M keys, and "only 4 sizes above the knee" held their verdicts back).
//
// Past the ramp by itself (issue 29): a GPU point's wall time is its process, its context and at
// least 0.2 s of timed runs (the repetition policy's min_time), whatever a run takes while runs are
// short, so a flat stretch costs a point a step however far the step goes. While a track is level
// from its start (three sizes or more over 4x, every run within twice the smallest), growth takes
// the largest step of up to `max_flat_growth` (16x; powers of 2 from `flat_growth`) that would
// cost at most twice the last point's wall time were the run time to grow as n² from the last
// size, and reserves for no fill (a level range shows no class); once the run time has risen, the
// usual steps. And the sizes a track needs (`min_sizes`) are counted from the end of its flat
// start (rising_from), so the fill and the reserve for it go where the class shows; the flat sizes
// stay, unfilled, to show the knee (docs/calibration.md, "Past the launch ramp by itself").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "runner/plan.hpp"

namespace ema {

/// What a finished point tells the calibration.
struct observation {
  double n = 0;
  double wall = 0;          ///< seconds the whole point took
  double run = 0;           ///< median seconds of one run (the metric `total`)
  int timed_runs = 0;       ///< timed repetitions it made
  double energy_span = 0;   ///< seconds of its energy window, 0 when none
  double host_bytes = 0;    ///< peak resident memory of its process
  double device_bytes = 0;  ///< peak device memory, 0 for CPU variants
};

/// The point's cost model: the repetition policy and energy window of the plan.
struct cost_policy {
  repetition_policy reps;
  double energy_window = 0;  ///< 0 when energy is not measured
  int instances = 1;         ///< points per size
};

/// Predicted wall seconds of one point at n (needs at least one observation; n may lie inside the
/// observed range, where walls are interpolated in log-log space).
double predict_wall(const std::vector<observation>& obs, double n, const cost_policy& policy);

/// Predicted peak bytes at n from `bytes` of each observation (host_bytes or device_bytes).
double predict_bytes(const std::vector<observation>& obs, double n, double observation::*bytes);

/// A size as the problem can run it: the nearest it takes to a size proposed (problem_desc::size_near).
using size_snap = std::function<std::uint64_t(std::uint64_t)>;

/// The sizes to add to `measured` (distinct, ascending) so that there are at least `min_sizes`:
/// repeatedly the rounded geometric midpoint of the widest gap in log n, as `snap` takes it; a gap
/// with no size the problem takes inside it is left (kron graphs: none between two powers of two).
std::vector<std::uint64_t> fill_sizes(const std::vector<std::uint64_t>& measured, int min_sizes, const size_snap& snap = {});

/// The sizes to add between those of a fitted regime (`regime`, ascending) so that it has about
/// `factor` times as many (analysis/verdict.hpp, more_sizes), at most `most`, by fill_sizes above;
/// none equal to one of `taken` (sizes planned already, run or not: one that failed is not proposed
/// again). `ema fit --more-sizes` and a calibrated sweep's settle phase both add them.
std::vector<std::uint64_t> more_sizes(const std::vector<std::uint64_t>& regime, double factor, int most, const size_snap& snap,
                                      const std::vector<std::uint64_t>& taken = {});

/// The width of the gap between two sizes (lo < hi) that the fill splits first where it is widest.
using gap_width = std::function<double(double lo, double hi)>;

/// The same with the gaps measured by `width` (fill_sizes above: ln(hi / lo)).
std::vector<std::uint64_t> fill_sizes(const std::vector<std::uint64_t>& measured, int min_sizes, const size_snap& snap, const gap_width& width);

/// A gap's width by how much the run time changes across it, |ln run(hi) − ln run(lo)|, and at
/// least a quarter of its width in log n; run(n) interpolated in log-log space between the
/// observations (ascending) and extrapolated past the last by the recent slope; with none, the
/// width in log n.
gap_width cost_gap(const std::vector<observation>& obs);

/// Whether the run time grew less than √n over each of the last two steps of `obs` (a flat stretch).
bool flat_at_top(const std::vector<observation>& obs);

/// Where `obs` (ascending) stop being flat: the index of the last size of the leading stretch in
/// which every step grew the run time less than √n, where that stretch holds two steps or more
/// and the run time past it rises to twice its highest (a launch-bound start); else 0 (flat to
/// the top is a class, Θ(1), not a start). The sizes from it on are those that show the class.
std::size_t rising_from(const std::vector<observation>& obs);

/// The first sizes of `fill` (ascending) whose predicted points fit in `allowance` seconds.
std::vector<std::uint64_t> affordable_fill(const std::vector<observation>& obs, const std::vector<std::uint64_t>& fill, double allowance,
                                           const cost_policy& policy);

struct growth_limits {
  double allowance = 0;          ///< seconds this variant may still spend (its share of what is left)
  double timeout = 0;            ///< seconds one point may take
  double host_free = 0;          ///< bytes of host memory free now
  double device_free = 0;        ///< bytes of device memory free now; 0 for CPU variants
  double memory_fraction = 0.8;  ///< of what is free, the most a point may use
  std::uint64_t max_size = 0;    ///< 0: none
  double growth = 2;
  double flat_growth = 4;       ///< the growth per step while the run time is flat (flat_at_top)
  double max_flat_growth = 16;  ///< ... up to this where the step costs a point no more (see above)
  int min_sizes = 12;
  size_snap snap;  ///< the size the problem takes nearest the one proposed; empty: every size
};

struct growth_step {
  std::optional<std::uint64_t> next;  ///< the next size, or none: growth stops
  std::string stop;                   ///< why it stops
  double predicted_wall = 0;          ///< of the next size, all instances
};

/// Decides the next size after `obs` (the growth points so far, ascending; at least one).
growth_step next_size(const std::vector<observation>& obs, const growth_limits& limits, const cost_policy& policy);

/// The size a settle round runs toward `named`, the size a verdict names, from `largest`, the
/// largest size measured: `named` itself within the larger of `limits.growth` and
/// `limits.flat_growth` times `largest`, else the size that far past it (as `limits.snap` takes
/// it). Growth never steps further, and a cost extrapolated further hides what grows beneath a
/// fixed start (a GPU stencil's grid built and checked on the host: 32768 predicted within an 11 s
/// point timeout from 4096, on an H200, and timed out); the next round predicts from the point
/// measured on the way.
std::uint64_t settle_step(double largest, std::uint64_t named, const growth_limits& limits);

/// Which of a settle round's wants run, in the order they run, given what each costs this round
/// (`steps`: the point, or the more sizes, it runs now) and the whole way to the size its verdict
/// names (`ways`: this round's step and those of the rounds after it, each no further than growth
/// steps; `settle_step`), and the budget left. First the wants whose whole way fits, the cheapest
/// way first, each way kept back from the budget for its later rounds; then, with what those leave,
/// the others by this round's cost, cheapest first, each that fits what the ones before it left.
/// (The cheapest alone was not enough: on the 2-core VM a main job's settle phase spent its last
/// 56 s on gauss `omp`'s 5793, on the way to a size of 1570 s, and search `omp`'s next round, 65 ms
/// on the way to the 16.8M that would settle it, found nothing left. An equal share each had left
/// 16 s of an H200 gauss sweep's 120 s unspent: seven tracks wanted 6.7-98 s each, none fitted
/// 16 s / 7, while the cheapest fitted 16 s.)
std::vector<std::size_t> settle_picks(std::span<const double> steps, std::span<const double> ways, double left);

/// Whether a point of a calibrated sweep that ended with `status` in `phase` ends its track as
/// planned rather than failing: a timeout of a growth point ("grow": the way growth is meant to
/// stop) or of a settle point ("settle", "more-sizes": predicted within the timeout from the sizes
/// measured, it was not) after the track measured a smaller size (`smaller_ok`). At a track's first size, in
/// any other phase, or any other status, it is a failure: the variant gave nothing, or broke.
bool timeout_as_planned(std::string_view phase, point_status status, bool smaller_ok);

}  // namespace ema
