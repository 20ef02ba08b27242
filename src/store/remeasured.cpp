#include "store/remeasured.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <map>
#include <tuple>
#include <vector>

namespace ema {

namespace {

nlohmann::json parse_notes(const std::string& notes_json) { return nlohmann::json::parse(notes_json, nullptr, false); }

/// The median of a point's total times; NaN where it has none.
double median_total(const point_record& r) {
  const auto it = r.samples.find("total");
  if (it == r.samples.end() || it->second.empty()) return NAN;
  auto v = it->second;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2) return *mid;
  return (*mid + *std::max_element(v.begin(), mid)) / 2;
}

}  // namespace

std::optional<std::string> disturbance_note(const nlohmann::json& notes) {
  if (!notes.is_object() || !notes.contains("disturbed")) return std::nullopt;
  const auto& d = notes["disturbed"];
  return d.is_string() ? d.get<std::string>() : std::string("the machine was busy");
}

std::vector<std::string> set_aside_reasons(const std::vector<const point_record*>& points) {
  using key_type = std::tuple<std::string, std::string, std::string, std::uint64_t, int>;
  std::map<key_type, std::vector<std::size_t>> by_key;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& r = *points[i];
    if (r.status == point_status::ok) by_key[{r.problem, r.variant, r.params_json, r.n, r.instance}].push_back(i);
  }
  std::vector<std::string> why(points.size());
  for (const auto& [key, at] : by_key) {
    if (at.size() < 2) continue;
    std::vector<nlohmann::json> notes;
    for (auto i : at) notes.push_back(parse_notes(points[i]->notes_json));
    const bool quiet = std::any_of(notes.begin(), notes.end(), [](const nlohmann::json& j) { return !disturbance_note(j); });
    if (quiet)
      for (std::size_t k = 0; k < at.size(); ++k)
        if (auto d = disturbance_note(notes[k]))
          why[at[k]] = fmt::format("the machine was busy while it ran ({}); a quiet measurement of the same point is used", *d);
    // A note of another type (a database changed by hand) is as none.
    auto rerun = [&](std::size_t k) { return notes[k].is_object() && notes[k].contains("rerun") && notes[k]["rerun"] == true; };
    std::optional<std::size_t> latest;  // an index into `at`
    for (std::size_t k = 0; k < at.size(); ++k)
      if (why[at[k]].empty() && rerun(k) && (!latest || points[at[k]]->ordinal > points[at[*latest]]->ordinal)) latest = k;
    if (latest)
      for (std::size_t k = 0; k < at.size(); ++k)
        if (k != *latest && why[at[k]].empty() && points[at[k]]->ordinal < points[at[*latest]]->ordinal)
          why[at[k]] = fmt::format("measured again by --rerun-noisy (plan point {})", points[at[*latest]]->ordinal + 1);
    // Rounds (--rounds): of those still kept, the quickest.
    auto round_of = [&](std::size_t k) {
      return notes[k].is_object() && notes[k].contains("round") && notes[k]["round"].is_number_integer() ? notes[k]["round"].get<int>() : 1;
    };
    std::vector<std::size_t> kept;  // indices into `at`
    for (std::size_t k = 0; k < at.size(); ++k)
      if (why[at[k]].empty()) kept.push_back(k);
    if (kept.size() < 2 || std::none_of(kept.begin(), kept.end(), [&](std::size_t k) { return round_of(k) > 1; })) continue;
    std::vector<double> median(at.size(), NAN);  // each kept one's, computed once
    std::optional<std::size_t> quickest;
    for (auto k : kept)
      if (median[k] = median_total(*points[at[k]]); std::isfinite(median[k]) && (!quickest || median[k] < median[*quickest])) quickest = k;
    if (!quickest) continue;
    for (auto k : kept)
      if (k != *quickest && std::isfinite(median[k]))
        why[at[k]] = fmt::format(
            "round {} of this point took less time (median total {:.4g} s against {:.4g} s here): of a point's rounds "
            "the quickest is kept (--rounds)",
            round_of(*quickest), median[*quickest], median[k]);
  }
  return why;
}

}  // namespace ema
