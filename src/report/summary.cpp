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
#include "report/grid.hpp"

namespace ema {
namespace {

std::string size_range(std::uint64_t lo, std::uint64_t hi) {
  const auto a = format_size(static_cast<double>(lo)), b = format_size(static_cast<double>(hi));
  return lo == hi ? fmt::format("n = {}", a) : fmt::format("n = {} – {}", a, b);
}

}  // namespace

namespace {

/// A run of sizes over which one variant is the fastest.
struct fastest_run {
  std::string variant;
  std::uint64_t from = 0, to = 0;
};

/// A variant against its baseline at the largest size both ran.
struct against_baseline {
  std::string variant, base;
  std::uint64_t n = 0;
  double speedup = 0, lo = 0, hi = 0;
  bool same_algorithm = true;  ///< false: the ratio is of two algorithms, not parallel speedup
  std::string caveat;          ///< what else the ratio holds (variant_desc::speedup_caveat), same algorithm only
  bool spans() const { return lo <= 1 && hi >= 1; }
};

/// What the summary and the overview say of one problem and parameter set.
struct group_facts {
  std::vector<std::string> variants;  ///< in the order they first ran
  std::vector<fastest_run> fastest;
  std::vector<against_baseline> speedups;
};

group_facts facts_of(const experiment_view& v, const std::string& problem, const std::string& params_json) {
  group_facts out;
  // Every sample of `total` of the points that ran ok, per variant and n (instances pooled).
  std::map<std::string, std::map<std::uint64_t, std::vector<double>>> samples;
  for (const auto& p : v.points) {
    const auto& r = p.record;
    if (r.problem != problem || r.params_json != params_json || r.status != point_status::ok) continue;
    auto it = p.metrics.find("total");
    if (it == p.metrics.end() || it->second.values.empty()) continue;
    if (std::find(out.variants.begin(), out.variants.end(), r.variant) == out.variants.end()) out.variants.push_back(r.variant);
    auto& s = samples[r.variant][r.n];
    s.insert(s.end(), it->second.values.begin(), it->second.values.end());
  }
  if (samples.empty()) return out;

  // The fastest variant at each size, runs of sizes with one winner joined.
  std::map<std::uint64_t, std::pair<std::string, double>> fastest;
  for (const auto& [variant, by_n] : samples)
    for (const auto& [n, xs] : by_n) {
      const double m = median(xs);
      auto [it, fresh] = fastest.try_emplace(n, variant, m);
      if (!fresh && m < it->second.second) it->second = {variant, m};
    }
  for (auto it = fastest.begin(); it != fastest.end();) {
    auto end = it;
    std::uint64_t last = it->first;
    while (end != fastest.end() && end->second.first == it->second.first) last = end->first, ++end;
    out.fastest.push_back({it->second.first, it->first, last});
    it = end;
  }

  // Each variant against its baseline (the "vs seq" of the tables) at the largest n both ran.
  const auto ids = variant_identities(v, problem);
  std::mt19937_64 rng(1);
  for (const auto& variant : out.variants) {
    const auto base =
        speedup_baseline_among(ids, problem, variant, backend::seq, [&](std::string_view name) { return samples.count(std::string(name)) > 0; });
    if (base.empty() || base == variant) continue;
    const auto& mine = samples.at(variant);
    const auto& theirs = samples.at(base);
    for (auto it = mine.rbegin(); it != mine.rend(); ++it) {
      auto other = theirs.find(it->first);
      if (other == theirs.end()) continue;
      // The interval of T(base) / T(variant): the ratio of the medians, each side resampled.
      const auto [lo, hi] = median_ratio_interval(it->second, other->second, 1000, rng);
      auto algorithm = [&](const std::string& name) {
        for (const auto& id : ids)
          if (id.name == name) return id.algorithm;
        return std::string();
      };
      const bool same = algorithm(variant).empty() || algorithm(variant) == algorithm(base);
      out.speedups.push_back(
          {variant, base, it->first, median(other->second) / median(it->second), lo, hi, same, speedup_caveat(ids, problem, variant, base)});
      break;
    }
  }
  return out;
}

}  // namespace

std::string render_summary(const experiment_view& v, const std::string& problem, const std::string& params_json,
                           const std::vector<variant_fit>& total_fits, table_style style) {
  const bool md = style == table_style::markdown;
  const char* bullet = md ? "- " : "  ";
  const auto facts = facts_of(v, problem, params_json);
  std::string out;
  if (facts.variants.empty()) return out;
  std::vector<std::string> runs;
  for (const auto& r : facts.fastest) runs.push_back(fmt::format("{} for {}", stored_text(r.variant, style), size_range(r.from, r.to)));
  out += fmt::format("{}fastest (median total time): {}\n", bullet, fmt::join(runs, "; "));
  for (const auto& s : facts.speedups)
    out += fmt::format("{}{} against {} at n = {}: {} (95% interval {} – {}){}{}\n", bullet, stored_text(s.variant, style),
                       stored_text(s.base, style), format_size(static_cast<double>(s.n)), format_ratio(s.speedup), format_ratio(s.lo),
                       format_ratio(s.hi), s.spans() ? ": the interval spans 1×, no difference shown" : "",
                       s.caveat.empty() ? "" : "; not parallel speedup alone: " + stored_text(s.caveat, style));

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

std::string render_overview(const experiment_view& v, const std::vector<variant_fit>& total_fits, table_style style) {
  // The problems and parameter sets in the order they first ran.
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& p : v.points)
    if (std::find(groups.begin(), groups.end(), std::pair(p.record.problem, p.record.params_json)) == groups.end())
      groups.emplace_back(p.record.problem, p.record.params_json);
  grid t;
  t.columns = {{"problem", false}, {"variant", false}, {"fastest for", false}, {"grows as", false}, {"exponent of n (95%)", false},
               {"verdict", false}, {"speedup", true},  {"against", false}};
  for (const auto& [problem, params_json] : groups) {
    const auto facts = facts_of(v, problem, params_json);
    const auto ptext = params_text(params_json, ",", problem);
    const auto label = ptext.empty() ? problem : fmt::format("{} ({})", problem, ptext);
    bool first = true;
    for (const auto& variant : facts.variants) {
      std::vector<std::string> wins;
      for (const auto& r : facts.fastest)
        if (r.variant == variant)
          wins.push_back(r.from == r.to ? format_size(static_cast<double>(r.from))
                                        : fmt::format("{} – {}", format_size(static_cast<double>(r.from)), format_size(static_cast<double>(r.to))));
      std::string cls = "—", exponent, verdict = "not fitted";
      for (const auto& f : total_fits) {
        if (f.problem != problem || f.params_json != params_json || f.variant != variant || !f.analysis) continue;
        const auto& a = *f.analysis;
        cls = a.groups.best.theta().text();
        if (const auto& ci = a.uncertainty.interval; ci && ci->what == "exponent of n")
          exponent = fmt::format("{} [{}, {}]", fit::exponent_text(ci->estimate), fit::exponent_text(ci->lo), fit::exponent_text(ci->hi));
        verdict = fit::to_string(a.verdict.level);
      }
      std::string speedup, against;
      for (const auto& s : facts.speedups)
        if (s.variant == variant) {
          speedup = format_ratio(s.speedup) + (s.spans() ? " (no difference shown)" : "");
          against = fmt::format("{} at n = {}{}", s.base, format_size(static_cast<double>(s.n)),
                                !s.same_algorithm   ? " (another algorithm)"
                                : !s.caveat.empty() ? fmt::format(" ({})", s.caveat)
                                                    : "");
        }
      t.rows.push_back({first ? label : "", variant, wins.empty() ? "—" : fmt::format("{}", fmt::join(wins, ", ")), cls, exponent, verdict,
                        speedup.empty() ? "—" : speedup, against});
      first = false;
    }
  }
  if (t.rows.empty()) return {};
  return render(t, style);
}

}  // namespace ema
