#include "report/analysis_tables.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <random>
#include <tuple>

#include "core/backend.hpp"
#include "measure/stats.hpp"
#include "core/registry.hpp"
#include "core/format.hpp"

namespace ema {
namespace {

std::optional<double> processors_of(const point_view& p) {
  if (backend_from_string(p.record.backend) == backend::seq) return 1.0;
  if (!p.notes.is_object() || !p.notes.contains("processors")) return std::nullopt;
  const auto& v = p.notes["processors"];
  try {
    return v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>();
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::vector<repeated_runs> summarize_runs(const experiment_view& v, const std::string& metric) {
  using key = std::tuple<std::string, std::string, std::uint64_t, std::string>;
  std::map<key, repeated_runs> rows;
  std::map<key, std::vector<double>> samples;
  std::vector<key> order;
  for (const auto& p : v.points) {
    const auto& r = p.record;
    if (r.status != point_status::ok) continue;
    auto it = p.metrics.find(metric);
    if (it == p.metrics.end() || it->second.values.empty()) continue;
    key k{r.problem, r.params_json, r.n, r.variant};
    auto& row = rows[k];
    if (!row.points) {
      order.push_back(k);
      row.problem = r.problem;
      row.params_json = r.params_json;
      row.variant = r.variant;
      row.backend = r.backend;
      row.n = r.n;
      row.processors = processors_of(p);
    }
    ++row.points;
    auto& s = samples[k];
    s.insert(s.end(), it->second.values.begin(), it->second.values.end());
  }
  for (auto& [k, row] : rows) {
    const auto st = summarize(samples[k]);
    row.runs = static_cast<int>(st.count);
    row.median = st.median;
    row.mean = st.mean;
    row.stddev = st.stddev;
    row.max = st.max;
    row.min = st.min;
  }
  std::map<std::string, std::vector<variant_identity>> identities;
  for (const auto& [k, row] : rows)
    if (!identities.count(std::get<0>(k))) identities[std::get<0>(k)] = variant_identities(v, std::get<0>(k));
  std::mt19937_64 rng(1);
  for (auto& [k, row] : rows) {
    auto baseline = [&](backend ref) {
      const auto name = speedup_baseline_among(identities[std::get<0>(k)], std::get<0>(k), std::get<3>(k), ref, [&](std::string_view name) {
        return rows.count({std::get<0>(k), std::get<1>(k), std::get<2>(k), std::string(name)}) > 0;
      });
      return rows.find({std::get<0>(k), std::get<1>(k), std::get<2>(k), name});
    };
    auto median_of = [&](backend ref) -> std::optional<double> {
      auto it = baseline(ref);
      return it == rows.end() ? std::nullopt : std::optional<double>(it->second.median);
    };
    if (auto s = median_of(backend::seq)) {
      row.speedup_seq = *s / row.median;
      const auto base = baseline(backend::seq)->first;
      if (base != k) {
        const auto [lo, hi] = median_ratio_interval(samples[k], samples[base], 500, rng);
        row.speedup_spans_one = lo <= 1 && hi >= 1;
      }
    }
    if (auto o = median_of(backend::omp)) row.speedup_omp = *o / row.median;
    if (row.processors && row.speedup_seq) row.efficiency = *row.speedup_seq / *row.processors;
    if (row.processors) row.cost = *row.processors * row.median;
  }
  std::map<std::pair<std::string, std::string>, std::size_t> group;  // problem and parameters, in plan order
  for (const auto& k : order) group.emplace(std::pair{std::get<0>(k), std::get<1>(k)}, group.size());
  std::stable_sort(order.begin(), order.end(), [&](const key& a, const key& b) {
    auto rank = [&](const key& k) {
      return std::tuple{group[{std::get<0>(k), std::get<1>(k)}], std::get<2>(k), backend_order(rows[k].backend), std::get<3>(k)};
    };
    return rank(a) < rank(b);
  });
  std::vector<repeated_runs> out;
  for (const auto& k : order) out.push_back(rows[k]);
  return out;
}

std::string render_analysis_tables(const experiment_view& v, table_style style) {
  const bool md = style == table_style::markdown;
  const auto rows = summarize_runs(v);
  std::string out;
  std::size_t i = 0;
  while (i < rows.size()) {
    const auto& first = rows[i];
    out += md ? fmt::format("\n### {} ({}): repeated runs\n\n", stored_text(first.problem, style),
                            stored_text(params_text(first.params_json, ",", first.problem), style))
              : fmt::format("\n{} ({}) — repeated runs, total time\n", first.problem, params_text(first.params_json, ",", first.problem));
    grid g;
    g.columns = {{"n", true},   {"variant", false}, {"runs", true},   {"median", true}, {"mean", true},       {"std dev", true}, {"max", true},
                 {"min", true}, {"speedup", true},  {"vs omp", true}, {"p", true},      {"efficiency", true}, {"cost p·T", true}};
    for (; i < rows.size() && rows[i].problem == first.problem && rows[i].params_json == first.params_json; ++i) {
      const auto& r = rows[i];
      auto opt = [](const std::optional<double>& x, auto fmt_fn) { return x ? fmt_fn(*x) : std::string("-"); };
      g.rows.push_back({fmt::format("{}", r.n), r.variant, r.points > 1 ? fmt::format("{} ({} inputs)", r.runs, r.points) : std::to_string(r.runs),
                        format_time(r.median), format_time(r.mean), format_time(r.stddev), format_time(r.max), format_time(r.min),
                        opt(r.speedup_seq, [&](double x) { return format_ratio(x) + (r.speedup_spans_one ? " ~" : ""); }),
                        opt(r.speedup_omp, format_ratio), opt(r.processors, [](double p) { return fmt::format("{:.0f}", p); }),
                        opt(r.efficiency, [](double e) { return fmt::format("{:.3g}", e); }), opt(r.cost, format_time)});
    }
    out += render(g, style);
    if (md) out += "\n";
    out += fmt::format(
        "{}over every timed run of every input instance: min is the best case, max the worst, mean the "
        "average, median the middle one; speedup fs = Ts / Tp of the medians against the same algorithm's seq (vs "
        "omp: its omp), so that one slow run cannot own it; efficiency fs / p and cost p · Tp (the median) where "
        "the variant states its processor count p; ~: the speedup's 95% bootstrap interval (each side's runs "
        "resampled) holds 1×, so these runs show no difference\n",
        md ? "- " : "  ");
  }
  return out;
}

}  // namespace ema
