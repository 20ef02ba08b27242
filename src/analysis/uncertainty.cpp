#include "analysis/uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

namespace ema::fit {
namespace {

constexpr double kExponentReach = 1.5;

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(pos);
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

// Draws a resample of the data: each size's departure from `fit` drawn from all the sizes', with its
// replicates resampled within it; or, without replicates, the relative residuals of `fit`.
class resampler {
 public:
  resampler(const series& d, const equation& fit, std::uint64_t seed) : d_(d), rng_(seed) {
    for (std::size_t i = 0; i < d.size(); ++i) groups_[d.n[i]].push_back(i);
    for (const auto& [n, idx] : groups_) {
      replicated_ |= idx.size() >= 2;
      double mean = 0;
      for (auto i : idx) mean += d.y[i];
      mean /= static_cast<double>(idx.size());
      size_ratio_[n] = mean / fit(n);
      size_ratios_.push_back(size_ratio_[n]);
    }
    if (!replicated_)
      for (std::size_t i = 0; i < d.size(); ++i) ratios_.push_back(d.y[i] / fit(d.n[i]));
    fitted_.resize(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) fitted_[i] = fit(d.n[i]);
  }

  series draw() {
    series s;
    if (replicated_) {
      // Two levels: a size's departure from the curve drawn from all the sizes' (what varies
      // between sizes and processes), its replicates within it.
      std::uniform_int_distribution<std::size_t> other(0, size_ratios_.size() - 1);
      for (const auto& [n, idx] : groups_) {
        std::uniform_int_distribution<std::size_t> pick(0, idx.size() - 1);
        const double shift = size_ratios_[other(rng_)] / size_ratio_[n];
        for (std::size_t k = 0; k < idx.size(); ++k) s.add(n, d_.y[idx[pick(rng_)]] * shift);
      }
    } else {
      std::uniform_int_distribution<std::size_t> pick(0, ratios_.size() - 1);
      for (std::size_t i = 0; i < d_.size(); ++i) s.add(d_.n[i], fitted_[i] * ratios_[pick(rng_)]);
    }
    return s;
  }

 private:
  const series& d_;
  std::mt19937_64 rng_;
  std::map<double, std::vector<std::size_t>> groups_;
  bool replicated_ = false;
  std::vector<double> ratios_, fitted_;
  std::map<double, double> size_ratio_;  ///< each size's mean over the curve
  std::vector<double> size_ratios_;
};

}  // namespace

bootstrap_result bootstrap(const series& data, const equation& best, int resamples, std::uint64_t seed, const std::vector<double>& band_sizes) {
  bootstrap_result out;
  if (resamples <= 0 || data.size() < 3) return out;
  const auto sizes = data.sizes();

  // The leading exponent freed: the base of an exponential term (always fitted), else n's exponent.
  equation freed = best;
  const bool exp_lead = best.form.exp_term;
  freed.form.free_a1 = freed.form.free_a1 || !exp_lead;
  // The data's own exponent, not a refinement of the class: free over a class and a half either
  // side, so a wrong class does not clip the interval to itself.
  if (!exp_lead) freed.form.free_half = kExponentReach;
  std::optional<equation> centre;
  if (freed.form.coefficient_count() < static_cast<int>(sizes.size())) centre = fit_shape(data, freed);
  // A constant or lower-order term the freed fit drives to its bound 0 (c = s², d = w²) has no
  // slope there, so a resample started from the centre cannot move it, and barely moves the rest:
  // every resample returned the centre's exponent. Resamples start with such a term at 1% of the
  // least value instead, free to grow or go back to 0.
  if (centre) {
    const double least = *std::min_element(data.y.begin(), data.y.end());
    if (centre->form.constant && !(centre->c > 1e-6 * least)) centre->c = 0.01 * least;
    if (centre->form.lower) {
      auto unit = *centre;
      unit.d = 1;
      if (const double h = std::abs(unit.lower_term(sizes.front())); h > 0 && !(centre->d * h > 1e-6 * least)) centre->d = 0.01 * least / h;
    }
  }
  auto leading = [&](const equation& e) { return exp_lead ? e.a2 : e.a1; };

  resampler draw(data, best, seed);
  std::vector<double> lead;
  std::vector<std::vector<double>> curves(band_sizes.size());
  for (int r = 0; r < resamples; ++r) {
    const auto s = draw.draw();
    if (centre)
      if (auto e = fit_shape(s, *centre); e && std::isfinite(leading(*e))) lead.push_back(leading(*e));
    if (auto e = fit_shape(s, best))
      for (std::size_t k = 0; k < band_sizes.size(); ++k)
        if (double v = (*e)(band_sizes[k]); std::isfinite(v)) curves[k].push_back(v);
  }
  // The resamples are drawn about the best equation, misfit included (a wrong shape's residuals
  // keep their trend's size): the estimate is their median, the interval their 2.5th and 97.5th
  // percentiles. (The exponent freed on the data alone absorbs a step or a bend and can fall
  // outside that interval.)
  if (centre && lead.size() >= 10)
    out.interval = exponent_interval{exp_lead ? "base of the exponential term" : "exponent of n", percentile(lead, 0.5), percentile(lead, 0.025),
                                     percentile(lead, 0.975), static_cast<int>(lead.size())};
  for (std::size_t k = 0; k < band_sizes.size(); ++k)
    if (curves[k].size() >= 10) out.band.push_back({band_sizes[k], percentile(curves[k], 0.025), percentile(curves[k], 0.975)});
  return out;
}

std::optional<held_out_check> held_out(const series& data, const std::function<equation(const series&)>& select_best) {
  const auto sizes = data.sizes();
  if (sizes.size() < 6) return std::nullopt;
  const std::size_t hold = std::max<std::size_t>(1, sizes.size() / 5);
  const double cut = sizes[sizes.size() - hold - 1];
  held_out_check h;
  h.best = select_best(data.within(0, cut));
  const auto means = data.means();
  for (std::size_t i = sizes.size() - hold; i < sizes.size(); ++i) {
    held_out_point p{sizes[i], h.best(sizes[i]), means[i], 0};
    p.rel_err = p.predicted / p.measured - 1;
    h.max_rel_err = std::max(h.max_rel_err, std::abs(p.rel_err));
    h.points.push_back(p);
  }
  return h;
}

}  // namespace ema::fit
