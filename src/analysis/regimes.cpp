#include "analysis/regimes.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "core/format.hpp"

namespace ema::fit {
namespace {

struct piecewise {
  double sse = INFINITY;
  Eigen::VectorXd coef;
};

// Least squares of z on [1, x, max(0, x - b_1), ..., max(0, x - b_k)]: a continuous line whose
// slope changes by coef[2 + i] at each b_i.
piecewise fit_piecewise(const std::vector<double>& x, const std::vector<double>& z, const std::vector<double>& breaks) {
  const auto m = static_cast<Eigen::Index>(x.size());
  const auto p = static_cast<Eigen::Index>(2 + breaks.size());
  Eigen::MatrixXd a(m, p);
  Eigen::VectorXd rhs(m);
  for (Eigen::Index r = 0; r < m; ++r) {
    const double xi = x[static_cast<std::size_t>(r)];
    a(r, 0) = 1;
    a(r, 1) = xi;
    for (std::size_t j = 0; j < breaks.size(); ++j) a(r, static_cast<Eigen::Index>(2 + j)) = std::max(0.0, xi - breaks[j]);
    rhs[r] = z[static_cast<std::size_t>(r)];
  }
  piecewise f;
  f.coef = a.colPivHouseholderQr().solve(rhs);
  f.sse = (a * f.coef - rhs).squaredNorm();
  return f;
}

// Whether every segment that `breaks` (ascending) cut `x` into, ends included, holds at least `min`
// points.
bool segments_hold(const std::vector<double>& x, const std::vector<double>& breaks, int min) {
  for (std::size_t j = 0; j <= breaks.size(); ++j) {
    const double lo = j ? breaks[j - 1] : -INFINITY, hi = j < breaks.size() ? breaks[j] : INFINITY;
    const auto count = std::count_if(x.begin(), x.end(), [&](double v) { return v >= lo - 1e-12 && v <= hi + 1e-12; });
    if (count < min) return false;
  }
  return true;
}

}  // namespace

std::string breakpoint::text() const {
  const auto where = fmt::format("n ≈ {}", format_size(n));
  if (!cache.empty())
    return fmt::format("{} ({}) filled at {} (working set {}; slope {:.2f} → {:.2f})", cache, format_bytes(cache_bytes), where,
                       format_bytes(working_set), slope_below, slope_above);
  if (working_set > 0) return fmt::format("slope {:.2f} → {:.2f} at {} (working set {})", slope_below, slope_above, where, format_bytes(working_set));
  return fmt::format("slope {:.2f} → {:.2f} at {}", slope_below, slope_above, where);
}

std::vector<breakpoint> find_breakpoints(const series& data, const breakpoint_options& o) {
  const auto [x, z] = data.log_log();
  const int m = static_cast<int>(x.size());
  std::vector<double> breaks;
  if (m < 3 * o.min_sizes_per_segment) return {};
  auto current = fit_piecewise(x, z, breaks);
  const double step = std::log(2.0) / 8;
  std::vector<double> grid;
  for (double b = x.front() + step; b < x.back(); b += step) grid.push_back(b);
  // Whether `trial` (ascending) improves on the current fit by an F statistic of min_f for the
  // `added` breakpoints, each bending the slope by min_bend.
  auto accept = [&](const std::vector<double>& trial, const piecewise& f, const std::vector<double>& added) {
    const int p = static_cast<int>(trial.size()) + 2;
    const double residual = f.sse / std::max(1, m - p);
    const double f_stat = residual > 0 ? (current.sse - f.sse) / static_cast<double>(added.size()) / residual : INFINITY;
    if (!(f_stat >= o.min_f)) return false;
    for (double b : added) {
      const auto at = static_cast<Eigen::Index>(std::find(trial.begin(), trial.end(), b) - trial.begin());
      if (std::abs(f.coef[2 + at]) < o.min_bend) return false;
    }
    return true;
  };
  auto with = [&](std::vector<double> trial, std::initializer_list<double> added) {
    for (double b : added) trial.insert(std::upper_bound(trial.begin(), trial.end(), b), b);
    return trial;
  };
  while (static_cast<int>(breaks.size()) < o.max_breakpoints) {
    // One more breakpoint where it fits best; failing that, a pair (a cache's edge is a steeper
    // stretch between two lines, which one hinge alone describes badly).
    piecewise best;
    std::vector<double> best_trial, best_added;
    for (double b : grid) {
      auto trial = with(breaks, {b});
      if (!segments_hold(x, trial, o.min_sizes_per_segment)) continue;
      auto f = fit_piecewise(x, z, trial);
      if (f.sse < best.sse) best = f, best_trial = trial, best_added = {b};
    }
    if (best_trial.empty()) break;
    if (!accept(best_trial, best, best_added)) {
      best = {};
      best_trial.clear();
      if (static_cast<int>(breaks.size()) + 2 <= o.max_breakpoints)
        for (std::size_t i = 0; i < grid.size(); ++i)
          for (std::size_t j = i + 1; j < grid.size(); ++j) {
            auto trial = with(breaks, {grid[i], grid[j]});
            if (!segments_hold(x, trial, o.min_sizes_per_segment)) continue;
            auto f = fit_piecewise(x, z, trial);
            if (f.sse < best.sse) best = f, best_trial = trial, best_added = {grid[i], grid[j]};
          }
      if (best_trial.empty() || !accept(best_trial, best, best_added)) break;
    }
    breaks = std::move(best_trial);
    current = best;
  }
  std::vector<breakpoint> out;
  double slope = current.coef.size() > 1 ? current.coef[1] : 0;
  for (std::size_t j = 0; j < breaks.size(); ++j) {
    breakpoint b;
    b.n = std::exp(breaks[j]);
    b.slope_below = slope;
    slope += current.coef[static_cast<Eigen::Index>(2 + j)];
    b.slope_above = slope;
    out.push_back(b);
  }
  return out;
}

void name_breakpoints(std::vector<breakpoint>& points, const std::vector<memory_level>& caches, const std::function<double(double)>& working_set) {
  if (!working_set) return;
  for (auto& b : points) {
    b.working_set = working_set(b.n);
    if (!(b.working_set > 0)) continue;
    double nearest = INFINITY;
    for (const auto& c : caches) {
      if (!(c.bytes > 0)) continue;
      const double distance = std::abs(std::log(b.working_set / c.bytes));
      if (distance <= std::log(2.0) && distance < nearest) {
        nearest = distance;
        b.cache = c.name;
        b.cache_bytes = c.bytes;
      }
    }
  }
}

double size_for_working_set(const std::function<double(double)>& working_set, double bytes) {
  if (!working_set || !(bytes > 0)) return 0;
  double lo = 1, hi = 0x1p62;
  if (working_set(hi) < bytes) return 0;
  if (working_set(lo) >= bytes) return lo;
  for (int i = 0; i < 200 && hi - lo > 0.5; ++i) {
    const double mid = std::sqrt(lo * hi) < lo + 1 ? (lo + hi) / 2 : std::sqrt(lo * hi);
    (working_set(mid) >= bytes ? hi : lo) = mid;
  }
  auto r = std::floor(hi);
  while (r > 1 && working_set(r - 1) >= bytes) --r;
  while (working_set(r) < bytes) ++r;
  return r;
}

}  // namespace ema::fit
