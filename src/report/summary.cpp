#include "report/summary.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <random>

#include "core/backend.hpp"
#include "core/format.hpp"
#include "core/registry.hpp"
#include "measure/stats.hpp"

namespace ema {
namespace {

std::string size_range(std::uint64_t lo, std::uint64_t hi) {
  const auto a = format_size(static_cast<double>(lo)), b = format_size(static_cast<double>(hi));
  return lo == hi ? fmt::format("n = {}", a) : fmt::format("n = {} – {}", a, b);
}

}  // namespace

std::string render_summary(const experiment_view& v, const std::string& problem, const std::string& params_json,
                           const std::vector<variant_fit>& total_fits, table_style style) {
  const bool md = style == table_style::markdown;
  const char* bullet = md ? "- " : "  ";
  // Every sample of `total` of the points that ran ok, per variant and n (instances pooled).
  std::map<std::string, std::map<std::uint64_t, std::vector<double>>> samples;
  std::vector<std::string> variants;
  for (const auto& p : v.points) {
    const auto& r = p.record;
    if (r.problem != problem || r.params_json != params_json || r.status != point_status::ok) continue;
    auto it = p.metrics.find("total");
    if (it == p.metrics.end() || it->second.values.empty()) continue;
    if (std::find(variants.begin(), variants.end(), r.variant) == variants.end()) variants.push_back(r.variant);
    auto& s = samples[r.variant][r.n];
    s.insert(s.end(), it->second.values.begin(), it->second.values.end());
  }
  std::string out;
  if (samples.empty()) return out;

  // The fastest variant at each size, runs of sizes with one winner joined.
  std::map<std::uint64_t, std::pair<std::string, double>> fastest;
  for (const auto& [variant, by_n] : samples)
    for (const auto& [n, xs] : by_n) {
      const double m = median(xs);
      auto [it, fresh] = fastest.try_emplace(n, variant, m);
      if (!fresh && m < it->second.second) it->second = {variant, m};
    }
  std::vector<std::string> runs;
  for (auto it = fastest.begin(); it != fastest.end();) {
    auto end = it;
    std::uint64_t last = it->first;
    while (end != fastest.end() && end->second.first == it->second.first) last = end->first, ++end;
    runs.push_back(fmt::format("{} for {}", stored_text(it->second.first, style), size_range(it->first, last)));
    it = end;
  }
  out += fmt::format("{}fastest (median total time): {}\n", bullet, fmt::join(runs, "; "));

  // Each variant against its baseline (the "vs seq" of the tables) at the largest n both ran.
  const auto ids = variant_identities(v, problem);
  std::mt19937_64 rng(1);
  for (const auto& variant : variants) {
    const auto base =
        speedup_baseline_among(ids, problem, variant, backend::seq, [&](std::string_view name) { return samples.count(std::string(name)) > 0; });
    if (base.empty() || base == variant) continue;
    const auto& mine = samples.at(variant);
    const auto& theirs = samples.at(base);
    for (auto it = mine.rbegin(); it != mine.rend(); ++it) {
      auto other = theirs.find(it->first);
      if (other == theirs.end()) continue;
      const double speedup = median(other->second) / median(it->second);
      // The interval of T(base) / T(variant): the ratio of the medians, each side resampled.
      const auto [lo, hi] = median_ratio_interval(it->second, other->second, 1000, rng);
      const bool spans = lo <= 1 && hi >= 1;
      out += fmt::format("{}{} against {} at n = {}: {} (95% interval {} – {}){}\n", bullet, stored_text(variant, style), stored_text(base, style),
                         format_size(static_cast<double>(it->first)), format_ratio(speedup), format_ratio(lo), format_ratio(hi),
                         spans ? ": the interval spans 1×, no difference shown" : "");
      break;
    }
  }

  // The fitted classes with their verdicts.
  std::vector<variant_fit> fits;
  for (const auto& f : total_fits)
    if (f.problem == problem && f.params_json == params_json) fits.push_back(f);
  if (!fits.empty()) {
    out += fmt::format("{}fitted class of the total time, with its verdict (`ema fit` gives the reasons):\n", bullet);
    if (md) out += '\n';
    out += render_fit_summary(fits, style);
    if (md) out += '\n';
  }
  return out;
}

}  // namespace ema
