#include "runner/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <numeric>
#include <set>

#include "core/format.hpp"

namespace ema {
namespace {

double log_slope(double n0, double v0, double n1, double v1, double lo, double hi) {
  if (!(v0 > 0) || !(v1 > 0) || !(n1 > n0)) return std::clamp(1.0, lo, hi);
  return std::clamp(std::log(v1 / v0) / std::log(n1 / n0), lo, hi);
}

/// The slope of ln v over ln n to extrapolate from the last observation: the last step's, but never
/// more than one power of n steeper than the median of the (up to three) steps before it. A point
/// slowed by a busy machine makes its step steep, and extrapolated from it alone the next size
/// looked 16 times dearer per doubling and growth stopped (a 6 s bfs sweep at 2 sizes); a real bend
/// still raises the slope by a power of n per step. From a single step, no steeper than n² (an n³
/// cost shows its slope at the next step, when that point has been measured).
double recent_slope(const std::vector<observation>& obs, const std::function<double(const observation&)>& v, double lo, double hi) {
  const std::size_t m = obs.size();
  if (m < 2) return std::clamp(1.0, lo, hi);
  const double last = log_slope(obs[m - 2].n, v(obs[m - 2]), obs[m - 1].n, v(obs[m - 1]), lo, hi);
  std::vector<double> before;
  for (std::size_t i = m - 2; i >= 1 && before.size() < 3; --i) before.push_back(log_slope(obs[i - 1].n, v(obs[i - 1]), obs[i].n, v(obs[i]), lo, hi));
  if (before.empty()) return std::min(last, std::max(lo, 2.0));  // one step: no steeper than n² until a second shows it
  std::sort(before.begin(), before.end());
  return std::min(last, before[before.size() / 2] + 1);
}

// Seconds of a point spent in runs: warm-up, the timed repetitions, then the energy window (its
// own runs, at least one, ending on a counter update; runner/worker.cpp).
double runs_of(double run, int timed_runs, double energy_span, int warmup) { return warmup * run + timed_runs * run + energy_span; }

double other_of(const observation& o, int warmup) { return std::max(o.wall - runs_of(o.run, o.timed_runs, o.energy_span, warmup), 0.02 * o.wall); }

double interpolate(const std::vector<observation>& obs, double n, double observation::*field) {
  if (n <= obs.front().n) return obs.front().*field;
  for (std::size_t i = 1; i < obs.size(); ++i) {
    const auto &a = obs[i - 1], &b = obs[i];
    if (n > b.n) continue;
    const double va = a.*field, vb = b.*field;
    if (!(va > 0) || !(vb > 0)) return std::max(va, vb);
    const double f = std::log(n / a.n) / std::log(b.n / a.n);
    return std::exp(std::log(va) + f * (std::log(vb) - std::log(va)));
  }
  return obs.back().*field;
}

}  // namespace

namespace {

/// A point's wall time `ratio` times past the last of `obs`, its run time growing with
/// `run_slope` and the rest with the slope the points so far show.
double wall_past(const std::vector<observation>& obs, double ratio, double run_slope, const cost_policy& policy) {
  const auto& last = obs.back();
  const int warmup = policy.reps.warmup;
  const double other_slope = recent_slope(
      obs, [warmup](const observation& o) { return other_of(o, warmup); }, 0, 3);
  const double run = last.run * std::pow(ratio, run_slope);
  const auto& r = policy.reps;
  double timed;
  if (r.fixed) {
    timed = *r.fixed * run;
  } else {
    // max_time wins where a stored plan's min_time is above it, as in repetition_policy::satisfied.
    const double observed = std::min(std::max(last.timed_runs * last.run, r.min_time), r.max_time);
    timed = std::max(r.min_reps * run, observed);
  }
  // An energy window only where the variant had a meter to read (its last point had a window).
  const double energy = last.energy_span > 0 ? policy.energy_window : 0.0;
  // The window: at least its length and one run, then up to a counter period (about a run more).
  const double runs = warmup * run + timed + (energy > 0 ? std::max(energy, run) + run : 0);
  return other_of(last, warmup) * std::pow(ratio, other_slope) + runs;
}

}  // namespace

double predict_wall(const std::vector<observation>& obs, double n, const cost_policy& policy) {
  const auto& last = obs.back();
  if (n <= last.n) return interpolate(obs, n, &observation::wall);
  const double run_slope = recent_slope(
      obs, [](const observation& o) { return o.run; }, 0, 4);
  return wall_past(obs, n / last.n, run_slope, policy);
}

double predict_bytes(const std::vector<observation>& obs, double n, double observation::*bytes) {
  const auto& last = obs.back();
  if (n <= last.n) return interpolate(obs, n, bytes);
  if (!(last.*bytes > 0)) return 0;
  // A process's peak is its baseline (the runtime, the libraries: megabytes) plus what the input
  // takes; only the second grows with n. Extrapolating the whole peak as a power of n made a
  // search point of 2^25 elements "need" 33 GiB from 8 MiB at 2^13 (`ema fit --settle`, a jump of
  // 4096 times). The baseline is where the line through the last two peaks meets n = 0 (kept
  // between 0 and the smaller peak), and what lies above it is extrapolated as a power of n, at
  // least linear.
  if (obs.size() < 2) return last.*bytes * (n / last.n);  // one size: proportional to n, the safe side
  const auto& prev = obs[obs.size() - 2];
  if (!(prev.*bytes > 0) || !(last.n > prev.n)) return last.*bytes * (n / last.n);
  const double per_n = (last.*bytes - prev.*bytes) / (last.n - prev.n);
  if (!(per_n > 0)) return last.*bytes;  // no growth with n measured
  const double base = std::clamp(last.*bytes - per_n * last.n, 0.0, prev.*bytes);
  const double slope = log_slope(prev.n, prev.*bytes - base, last.n, last.*bytes - base, 1, 4);
  return base + (last.*bytes - base) * std::pow(n / last.n, slope);
}

std::vector<std::uint64_t> fill_sizes(const std::vector<std::uint64_t>& measured, int min_sizes, const size_snap& snap) {
  return fill_sizes(measured, min_sizes, snap, [](double lo, double hi) { return std::log(hi / lo); });
}

std::vector<std::uint64_t> more_sizes(const std::vector<std::uint64_t>& regime, double factor, int most, const size_snap& snap,
                                      const std::vector<std::uint64_t>& taken) {
  if (regime.size() < 2 || most <= 0) return {};
  auto have = regime;
  for (auto n : taken)
    if (n > regime.front() && n < regime.back()) have.push_back(n);
  std::sort(have.begin(), have.end());
  have.erase(std::unique(have.begin(), have.end()), have.end());
  const auto asked = static_cast<int>(std::ceil(static_cast<double>(regime.size()) * factor)) - static_cast<int>(regime.size());
  return fill_sizes(have, static_cast<int>(have.size()) + std::min(std::max(asked, 1), most), snap);
}

gap_width cost_gap(const std::vector<observation>& obs) {
  if (obs.empty()) return [](double lo, double hi) { return std::log(hi / lo); };
  const double slope = recent_slope(
      obs, [](const observation& o) { return o.run; }, 0, 4);
  return [obs, slope](double lo, double hi) {
    const auto run = [&](double n) {
      return n <= obs.back().n ? interpolate(obs, n, &observation::run) : obs.back().run * std::pow(n / obs.back().n, slope);
    };
    const double a = run(lo), b = run(hi), in_n = std::log(hi / lo);
    return a > 0 && b > 0 ? std::max(std::abs(std::log(b / a)), 0.25 * in_n) : in_n;
  };
}

namespace {

bool flat_step(const observation& a, const observation& b) {
  return a.run > 0 && b.run > 0 && b.n > a.n && std::log(b.run / a.run) < 0.5 * std::log(b.n / a.n);
}

}  // namespace

bool flat_at_top(const std::vector<observation>& obs) {
  // Two steps: one point slowed by a busy machine reads as a flat step after it, and a growing
  // cost taken 4x on that reading overshot its prediction by 4x (an 8 s search sweep spent its
  // energy windows' share on 2^29).
  if (obs.size() < 3) return false;
  const auto m = obs.size();
  return flat_step(obs[m - 3], obs[m - 2]) && flat_step(obs[m - 2], obs[m - 1]);
}

std::size_t rising_from(const std::vector<observation>& obs) {
  std::size_t k = 0;
  while (k + 1 < obs.size() && flat_step(obs[k], obs[k + 1])) ++k;
  // Flat to the top is no flat start: the whole range is the class (Θ(1), say) and is filled; nor
  // is a rise above it by less than twice its highest run time (a microsecond run's jitter).
  if (k < 2 || k + 1 >= obs.size()) return 0;
  double flat = 0, after = 0;
  for (std::size_t i = 0; i <= k; ++i) flat = std::max(flat, obs[i].run);
  for (std::size_t i = k + 1; i < obs.size(); ++i) after = std::max(after, obs[i].run);
  return after >= 2 * flat ? k : 0;
}

std::vector<std::uint64_t> fill_sizes(const std::vector<std::uint64_t>& measured, int min_sizes, const size_snap& snap, const gap_width& width) {
  std::set<std::uint64_t> sizes(measured.begin(), measured.end());
  std::set<std::uint64_t> closed;  // the lower ends of gaps with no size the problem takes inside
  std::vector<std::uint64_t> added;
  while (static_cast<int>(sizes.size()) < min_sizes) {
    double widest = 0;
    std::uint64_t lo = 0, hi = 0;
    for (auto it = sizes.begin(); it != sizes.end() && std::next(it) != sizes.end(); ++it) {
      const auto a = *it, b = *std::next(it);
      if (b - a < 2 || closed.count(a)) continue;
      const double gap = width(static_cast<double>(std::max<std::uint64_t>(a, 1)), static_cast<double>(b));
      // The first of gaps within 10% of each other: the cheapest (a gap measured by the run time's
      // change carries its noise, and the priciest of equal gaps would be split by chance).
      if (gap > 1.1 * widest) widest = gap, lo = a, hi = b;
    }
    if (hi == 0) break;
    auto mid = static_cast<std::uint64_t>(std::llround(std::sqrt(static_cast<double>(lo) * static_cast<double>(hi))));
    mid = std::clamp(mid, lo + 1, hi - 1);
    if (snap) mid = snap(mid);
    if (mid <= lo || mid >= hi) {
      closed.insert(lo);
      continue;
    }
    sizes.insert(mid);
    added.push_back(mid);
  }
  std::sort(added.begin(), added.end());
  return added;
}

std::vector<std::uint64_t> affordable_fill(const std::vector<observation>& obs, const std::vector<std::uint64_t>& fill, double allowance,
                                           const cost_policy& policy) {
  std::vector<std::uint64_t> out;
  double spent = 0;
  for (auto n : fill) {  // ascending: the cheapest first
    spent += predict_wall(obs, static_cast<double>(n), policy) * policy.instances;
    if (spent > allowance) break;
    out.push_back(n);
  }
  return out;
}

namespace {

/// The size after `last`: `growth` times it, as the problem takes it (snapped), within the largest
/// allowed and 2^62; 0 with `stop` saying why there is none.
std::uint64_t size_after(std::uint64_t last, const growth_limits& l, std::string& stop) {
  auto next = static_cast<std::uint64_t>(std::ceil(static_cast<double>(last) * l.growth));
  if (next <= last) next = last + 1;
  if (l.snap) {
    // The nearest size the problem takes; where that is not past the last, the one nearest twice it.
    const auto proposed = next;
    next = l.snap(proposed);
    if (next <= last) next = l.snap(2 * proposed);
    if (next <= last) {
      stop = fmt::format("the problem takes no size past n = {} near the next one ({})", format_size(static_cast<double>(last)),
                         format_size(static_cast<double>(proposed)));
      return 0;
    }
  }
  if (l.max_size && next > l.max_size) {
    if (last >= l.max_size) {
      stop = fmt::format("reached the largest size the problem allows ({})", l.max_size);
      return 0;
    }
    next = l.max_size;
    if (l.snap) {  // the largest size the problem takes at or below the largest allowed
      auto taken = l.snap(next);
      if (taken > next) taken = l.snap(next / 2);
      if (taken <= last || taken > next) {
        stop = fmt::format("reached the largest size allowed ({}) that the problem takes", l.max_size);
        return 0;
      }
      next = taken;
    }
  }
  if (next > (1ull << 62)) {
    stop = "reached n = 2^62";
    return 0;
  }
  return next;
}

/// Why one point at n would not fit the per-point timeout or the free host or device memory ("" when
/// it would), and its predicted wall time.
std::string point_refused(const std::vector<observation>& obs, double n, const growth_limits& l, const cost_policy& policy, double& one) {
  const auto n_text = format_size(n);
  one = predict_wall(obs, n, policy);
  if (one > l.timeout)
    return fmt::format("a point at n = {} would take about {}, over the per-point timeout of {}", n_text, format_time(one), format_time(l.timeout));
  const double host = predict_bytes(obs, n, &observation::host_bytes);
  if (l.host_free > 0 && host > l.memory_fraction * l.host_free)
    return fmt::format("a point at n = {} would need about {} of host memory, over {:.0f}% of the {} free", n_text, format_bytes(host),
                       100 * l.memory_fraction, format_bytes(l.host_free));
  const double device = predict_bytes(obs, n, &observation::device_bytes);
  if (l.device_free > 0 && device > l.memory_fraction * l.device_free)
    return fmt::format("a point at n = {} would need about {} of device memory, over {:.0f}% of the {} free", n_text, format_bytes(device),
                       100 * l.memory_fraction, format_bytes(l.device_free));
  return "";
}

}  // namespace

growth_step next_size(const std::vector<observation>& obs, const growth_limits& l, const cost_policy& policy) {
  growth_step s;
  // Level from the start: three sizes or more over 4x, every run within twice the smallest
  // (launches, not work). Two doubling steps at a microsecond run's jitter read as growing (cub-merge
  // at 0.12 and 0.17 ms, H200, seed 74) where the level of the whole start does not.
  double lowest = obs.front().run, highest = 0;
  for (const auto& o : obs) lowest = std::min(lowest, o.run), highest = std::max(highest, o.run);
  const bool level = obs.size() >= 3 && obs.back().n >= 4 * obs.front().n && lowest > 0 && highest <= 2 * lowest;
  const bool flat = level || flat_at_top(obs);
  auto step = l;
  if (flat) step.growth = std::max(l.growth, l.flat_growth);
  auto next = size_after(static_cast<std::uint64_t>(obs.back().n), step, s.stop);
  if (!next) return s;
  // Across a level start, the longest step (up to max_flat_growth) that costs a point no more than
  // twice the last were the run time to grow as n² from here, and that fits the timeout and memory.
  // Once the run time has risen (the ramp), steps are short again: the sizes past it are the ones a
  // verdict counts, and long steps there left GPU sorts of a 60 s sweep 4 sizes above their knee
  // (H200, seeds 70-71).
  for (double g = 2 * step.growth; level && g <= l.max_flat_growth; g *= 2) {
    auto longer = step;
    longer.growth = g;
    std::string none;
    const auto far = size_after(static_cast<std::uint64_t>(obs.back().n), longer, none);
    double cost = 0;
    if (!far || far <= next || wall_past(obs, static_cast<double>(far) / obs.back().n, 2, policy) > 2 * obs.back().wall ||
        !point_refused(obs, static_cast<double>(far), l, policy, cost).empty())
      break;
    next = far;
  }
  const double n = static_cast<double>(next);
  const auto n_text = format_size(n);
  double one = 0;
  if (s.stop = point_refused(obs, n, l, policy, one); !s.stop.empty()) return s;
  // The sizes the range will need, counted from the end of a flat start (rising_from; the flat
  // sizes below stay to show where it ends, and are not filled): min_sizes once it spans a factor
  // of 8, and until then 6, what a verdict needs at the least (analysis/verdict.hpp): a range too
  // narrow to tell log factors apart is not worth filling densely, so growth comes first. So too
  // while the run time is flat: a flat stretch tells nothing of the class, and reserving for its
  // fill stopped GPU sorts at 2^13 (4096 and 8192 flat at 0.44 s a point, 10 fills to 12 sizes over
  // a 5 s share, H200).
  const std::size_t rise = flat ? 0 : rising_from(obs);
  const double from = obs[rise].n;
  std::vector<std::uint64_t> sizes;
  for (std::size_t i = rise; i < obs.size(); ++i) sizes.push_back(static_cast<std::uint64_t>(obs[i].n));
  sizes.push_back(next);
  const int target = static_cast<double>(next) >= 8 * from && !flat ? l.min_sizes : std::min(l.min_sizes, 6);
  double fill = 0;
  for (auto f : fill_sizes(sizes, target, l.snap, cost_gap(obs))) fill += predict_wall(obs, static_cast<double>(f), policy);
  s.predicted_wall = one * policy.instances;
  // When even the cheapest point, repeated up to the sizes needed, does not fit what is left, no
  // range can be filled: then grow as wide as the share allows and fill what remains.
  double cheapest = obs.front().wall;
  for (const auto& o : obs) cheapest = std::min(cheapest, o.wall);
  const bool attainable = static_cast<double>(target - static_cast<int>(obs.size() - rise)) * cheapest * policy.instances <= l.allowance;
  const double needed = s.predicted_wall + (attainable ? fill * policy.instances : 0.0);
  // A range of less than a factor of 4 is one no fill makes worth fitting (a single size has no
  // gap to fill at all): while the sizes so far span less, growth goes on as long as the next point
  // alone fits. Reserving for the fill there stopped seven of fourteen GPU sorts at their first
  // size in a 60 s sweep on an H200 (2^13 "would take about 2.63 s with the sizes it would need
  // filled in", over a 2.58 s share, at 0.44 s a point).
  // Nor is a level start: filling it adds sizes that show no class (thrust-sort, level at 0.12-0.15
  // ms over 2^12..2^14 on an H200, stopped there reserving for two fills and filled 2^12..2^13
  // with three, seed 76); it grows while the next point alone fits.
  const bool narrow = obs.back().n < 4 * from || level;
  if (needed > l.allowance && !(attainable && narrow && s.predicted_wall <= l.allowance)) {
    s.stop = attainable ? fmt::format(
                              "n = {} would take about {} with the sizes it would need filled in, over this "
                              "variant's share of the budget left ({})",
                              n_text, format_time(needed), format_time(std::max(l.allowance, 0.0)))
                        : fmt::format(
                              "n = {} would take about {}, over this variant's share of the budget left ({}), "
                              "which cannot afford {} sizes at {} a point",
                              n_text, format_time(needed), format_time(std::max(l.allowance, 0.0)), target, format_time(cheapest * policy.instances));
    return s;
  }
  s.next = next;
  return s;
}

std::uint64_t settle_step(double largest, std::uint64_t named, const growth_limits& limits) {
  const double reach = largest * std::max(limits.growth, limits.flat_growth);
  if (!(largest > 0) || static_cast<double>(named) <= reach) return named;
  auto toward = static_cast<std::uint64_t>(std::llround(std::min(reach, 0x1p62)));
  if (limits.snap) toward = limits.snap(toward);
  return static_cast<double>(toward) > largest && toward < named ? toward : named;
}

bool timeout_as_planned(std::string_view phase, point_status status, bool smaller_ok) {
  return status == point_status::timeout && smaller_ok && (phase == "grow" || phase == "settle" || phase == "more-sizes");
}

std::vector<std::size_t> settle_picks(std::span<const double> steps, std::span<const double> ways, double left) {
  const std::size_t k = std::min(steps.size(), ways.size());
  std::vector<std::size_t> by_way(k), by_step(k);
  std::iota(by_way.begin(), by_way.end(), std::size_t{0});
  std::iota(by_step.begin(), by_step.end(), std::size_t{0});
  std::stable_sort(by_way.begin(), by_way.end(), [&](std::size_t a, std::size_t b) { return ways[a] < ways[b]; });
  std::stable_sort(by_step.begin(), by_step.end(), [&](std::size_t a, std::size_t b) { return steps[a] < steps[b]; });
  std::vector<std::size_t> out;
  std::vector<bool> picked(k, false);
  for (auto i : by_way)  // the whole way fits: this round's step runs, the rest of the way is kept back
    if (ways[i] >= steps[i] && ways[i] <= left) {
      picked[i] = true;
      out.push_back(i);
      left -= ways[i];
    }
  for (auto i : by_step)
    if (!picked[i] && steps[i] <= left) {
      picked[i] = true;
      out.push_back(i);
      left -= steps[i];
    }
  return out;
}

}  // namespace ema
