#include "report/axis_best.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <random>
#include <tuple>

#include "core/errors.hpp"
#include "core/format.hpp"
#include "measure/stats.hpp"
#include "report/grid.hpp"

namespace ema {

std::string render_best(const experiment_view& v, const std::string& key, table_style style) {
  // (problem, the other parameters, variant, n) -> value of the axis -> every sample of total.
  using group_key = std::tuple<std::string, std::string, std::string, std::uint64_t>;
  std::map<group_key, std::map<std::string, std::vector<double>>> groups;
  std::vector<group_key> order;
  for (const auto& p : v.points) {
    const auto& r = p.record;
    if (r.status != point_status::ok || !p.params.is_object() || !p.params.contains(key)) continue;
    auto it = p.metrics.find("total");
    if (it == p.metrics.end() || it->second.values.empty()) continue;
    auto others = p.params;
    others.erase(key);
    const group_key k{r.problem, others.dump(), r.variant, r.n};
    if (!groups.count(k)) order.push_back(k);
    const auto value = p.params[key].is_string() ? p.params[key].get<std::string>() : p.params[key].dump();
    auto& s = groups[k][value];
    s.insert(s.end(), it->second.values.begin(), it->second.values.end());
  }
  // By problem, its other parameters, size, then variant: each size's answers together.
  std::sort(order.begin(), order.end(), [](const group_key& a, const group_key& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<3>(a), std::get<2>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<3>(b), std::get<2>(b));
  });
  grid g;
  g.columns = {{"problem", false}, {"variant", false},  {"n", true},         {key, true},
               {"total", true},    {"runner-up", true}, {"its total", true}, {"within noise", false}};
  std::mt19937_64 rng(1);
  for (const auto& k : order) {
    const auto& by_value = groups.at(k);
    if (by_value.size() < 2) continue;
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& [value, xs] : by_value) ranked.emplace_back(median(xs), value);
    std::sort(ranked.begin(), ranked.end());
    const auto& best = by_value.at(ranked[0].second);
    const auto& second = by_value.at(ranked[1].second);
    const auto [lo, hi] = median_ratio_interval(best, second, 1000, rng);
    const auto others = params_text(std::get<1>(k), ",", std::get<0>(k));
    g.rows.push_back({others.empty() ? std::get<0>(k) : fmt::format("{} ({})", std::get<0>(k), others), std::get<2>(k),
                      std::to_string(std::get<3>(k)), ranked[0].second, format_time(ranked[0].first), ranked[1].second, format_time(ranked[1].first),
                      lo <= 1 ? fmt::format("yes ({} – {})", format_ratio(lo), format_ratio(hi))
                              : fmt::format("no ({} – {})", format_ratio(lo), format_ratio(hi))});
  }
  if (g.rows.empty())
    throw usage_error(fmt::format("experiment {} has no problem whose points ran at two or more values of '{}'", v.experiment.id, key));
  const bool md = style == table_style::markdown;
  std::string out = md ? fmt::format("\n### The best {} per size and variant\n\n", stored_text(key, style))
                       : fmt::format("\nThe best {} per size and variant\n", key);
  for (auto& row : g.rows)
    for (auto& cell : row) cell = stored_text(cell, style);
  out += render(g, style);
  out += fmt::format(
      "{}{}: the value with the least median total time (all its samples, input instances pooled); "
      "runner-up: the next; within noise: whether the 95% bootstrap interval of T(runner-up) / T(best) "
      "holds 1, i.e. these runs cannot tell the two apart\n",
      md ? "\n- " : "  ", stored_text(key, style));
  return out;
}

}  // namespace ema
