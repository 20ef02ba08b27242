#include "analysis/analyze.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/format.hpp"
#include <map>
#include <stdexcept>

namespace ema::fit {
namespace {

void validate(const series& d) {
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (!(d.n[i] > 0) || !std::isfinite(d.n[i]))
      throw std::invalid_argument(fmt::format("size {} is not a positive number", d.n[i]));
    if (!(d.y[i] > 0) || !std::isfinite(d.y[i]))
      throw std::invalid_argument(fmt::format("the value {} at n = {} is not positive (fits are on relative error)", d.y[i], d.n[i]));
  }
  const auto k = d.sizes().size();
  if (k < 3) throw std::invalid_argument(fmt::format("{} distinct size{}: a fit needs at least 3", k, k == 1 ? "" : "s"));
}

equation_groups fit_groups(const series& d, const analysis_options& o) {
  return select_groups(fit_family(d, o.family), d.sizes(), o.groups);
}

struct core_result {
  equation_groups g;
  std::optional<knee_report> knee;
  series regime;
  std::vector<breakpoint> breakpoints;
  double from = 0;
  std::string label;
};

core_result core(const series& d, const analysis_options& o) {
  core_result r;
  std::optional<fit::knee> k;
  if (o.find_knee) k = find_knee(d, o.knee);
  r.from = k ? k->n : 0;
  // Past a cache's edge: the highest breakpoint at or above a named one that leaves six sizes.
  if (!o.caches.empty() && o.working_set) {
    r.breakpoints = find_breakpoints(d);
    name_breakpoints(r.breakpoints, o.caches, o.working_set);
    const auto sizes = d.sizes();
    const breakpoint* named = nullptr;
    for (const auto& b : r.breakpoints) {
      if (!b.cache.empty()) named = named ? named : &b;
      const auto above = std::count_if(sizes.begin(), sizes.end(), [&](double n) { return n >= b.n; });
      if (named && above >= 6 && b.n > r.from) {
        r.from = b.n;
        r.label = fmt::format("past the {} ({}) edge: above n ≈ {:.3g}", named->cache, format_bytes(named->cache_bytes), b.n);
      }
    }
    if (!r.label.empty()) k.reset();  // the cache regime starts above the knee
  }
  if (r.from > 0 && r.label.empty() && k) r.label = fmt::format("above the knee at n ≈ {:.3g}", k->n);
  r.regime = r.from > 0 ? d.within(r.from, INFINITY) : d;
  r.g = fit_groups(r.regime, o);
  if (k) {
    knee_report kr{*k, {}, r.g.best.theta()};
    // Below the knee the metric is flat or grows slowly (|slope| <= 0.5): its class is one of the
    // lattice's up to √n times a power of log n.
    const auto below = d.within(0, k->n);
    if (below.sizes().size() >= 2) {
      auto slow = o;
      slow.family = {.max_n_exponent = 0.5, .max_log_exponent = o.family.max_log_exponent, .exponential = false,
                     .free_exponents = false};
      kr.below = fit_groups(below, slow).best.theta();
    } else {
      kr.below.n = std::round(k->slope_below * 2) / 2;
    }
    r.knee = kr;
  }
  return r;
}

nlohmann::json tie_json(const tie_break& t) {
  auto j = t.eq.to_json();
  j["tie_breaker"] = t.n ? nlohmann::json(*t.n) : nlohmann::json(nullptr);
  j["tie_breaker_cost_s"] = std::isfinite(t.cost) ? nlohmann::json(t.cost) : nlohmann::json(nullptr);
  return j;
}

}  // namespace

equation best_equation(const series& data, const analysis_options& o) { return core(data, o).g.best; }

analysis analyze(const series& data, const analysis_options& o) {
  validate(data);
  analysis a;
  a.data = data;
  auto r = core(data, o);
  a.groups = std::move(r.g);
  a.knee = std::move(r.knee);
  a.breakpoints = std::move(r.breakpoints);
  a.regime_from = r.from;
  a.regime = std::move(r.label);
  if (o.memory_bound && o.working_set && !o.caches.empty()) {
    const auto& last = o.caches.back();
    const double ws = o.working_set(data.sizes().back());
    if (ws <= 2 * last.bytes) a.resident = cache_residency{last.name, last.bytes, ws, size_for_working_set(o.working_set, 4 * last.bytes)};
  }
  const auto sizes = r.regime.sizes();
  std::vector<double> band_sizes;
  constexpr int steps = 48;
  for (int i = 0; i <= steps; ++i)
    band_sizes.push_back(sizes.front() * std::pow(sizes.back() / sizes.front(), static_cast<double>(i) / steps));
  a.uncertainty = bootstrap(r.regime, a.groups.best, o.bootstrap, o.seed, band_sizes);
  if (o.held_out)
    a.check = held_out(data, [&](const series& s) { return s.sizes().size() >= 3 ? best_equation(s, o) : equation{}; });
  if (o.held_out && sizes.size() >= 8) {
    const auto drop = std::max<std::size_t>(1, sizes.size() / 5);
    auto upper = o;
    upper.find_knee = false;
    upper.caches.clear();
    a.without_smallest = best_equation(r.regime.within(sizes[drop], INFINITY), upper);
  }
  a.verdict = judge(a, o.noise);
  return a;
}

nlohmann::json to_json(const analysis& a) {
  nlohmann::json j;
  j["sizes"] = a.data.sizes();
  std::map<double, std::vector<double>> pts;
  for (std::size_t i = 0; i < a.data.size(); ++i) pts[a.data.n[i]].push_back(a.data.y[i]);
  j["points"] = nlohmann::json::array();
  for (const auto& [n, v] : pts) j["points"].push_back({{"n", n}, {"values", v}});
  const auto& g = a.groups;
  j["candidates"] = g.candidates;
  j["best"] = g.best.to_json();
  j["verdict"] = a.verdict.to_json();
  j["min_error"] = g.min_error.to_json();
  j["equivalent"] = nlohmann::json::array();
  for (const auto& e : g.equivalent) j["equivalent"].push_back(e.to_json());
  j["distinguishable"] = nlohmann::json::array();
  for (const auto& t : g.distinguishable) j["distinguishable"].push_back(tie_json(t));
  j["non_distinguishable"] = nlohmann::json::array();
  for (const auto& t : g.non_distinguishable) j["non_distinguishable"].push_back(tie_json(t));
  if (a.knee)
    j["knee"] = {{"n", a.knee->where.n},
                 {"below", a.knee->below.to_json()},
                 {"above", a.knee->above.to_json()},
                 {"slope_below", a.knee->where.slope_below},
                 {"slope_above", a.knee->where.slope_above}};
  else
    j["knee"] = nullptr;
  j["breakpoints"] = nlohmann::json::array();
  for (const auto& b : a.breakpoints)
    j["breakpoints"].push_back({{"n", b.n},
                                {"slope_below", b.slope_below},
                                {"slope_above", b.slope_above},
                                {"cache", b.cache.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.cache)},
                                {"cache_bytes", b.cache_bytes},
                                {"working_set_bytes", b.working_set}});
  j["regime"] = {{"from", a.regime_from}, {"text", a.regime}};
  if (const auto& ci = a.uncertainty.interval)
    j["leading_exponent"] = {{"what", ci->what}, {"estimate", ci->estimate}, {"lo", ci->lo}, {"hi", ci->hi},
                             {"confidence", 0.95}, {"resamples", ci->resamples}};
  else
    j["leading_exponent"] = nullptr;
  j["band"] = nlohmann::json::array();
  for (const auto& b : a.uncertainty.band) j["band"].push_back({{"n", b.n}, {"lo", b.lo}, {"hi", b.hi}});
  if (a.check) {
    nlohmann::json pj = nlohmann::json::array();
    for (const auto& p : a.check->points)
      pj.push_back({{"n", p.n}, {"predicted", p.predicted}, {"measured", p.measured}, {"rel_err", p.rel_err}});
    j["held_out"] = {{"best", a.check->best.to_json()}, {"points", pj}, {"max_rel_err", a.check->max_rel_err}};
  } else {
    j["held_out"] = nullptr;
  }
  return j;
}

}  // namespace ema::fit
