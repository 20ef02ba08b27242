#include "runner/shard.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <numeric>
#include <optional>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/random.hpp"
#include "store/database.hpp"

namespace ema {
namespace {

int parse_count(std::string_view text, const char* what, std::string_view whole) {
  int v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw usage_error(fmt::format("--shard '{}': {} '{}' is not a whole number", whole, what, text));
  return v;
}

// The fixed cost of a point next to its work: a process, an input and a reference (in the work
// model's units this is a guess; it keeps many tiny points from all landing on one part).
constexpr double point_start_cost = 1e6;

double predicted_cost(const plan_point& pt) {
  const auto* prob = lookup_problem(pt.problem);
  if (!prob || !prob->work) return point_start_cost + static_cast<double>(pt.n);
  const auto w = prob->work(pt.n, pt.params);
  return point_start_cost + std::max(w.ops, w.bytes);
}

}  // namespace

shard_choice parse_shard(std::string_view text, const std::function<const char*(const char*)>& env) {
  shard_choice c;
  const auto slash = text.find('/');
  const auto first = text.substr(0, slash);
  const bool from_slurm = first == "auto";
  if (from_slurm) {
    const char* id = env("SLURM_ARRAY_TASK_ID");
    if (!id || !*id) throw usage_error(fmt::format("--shard {}: not inside a Slurm array task (SLURM_ARRAY_TASK_ID is not set); give I/N", text));
    c.index = parse_count(id, "SLURM_ARRAY_TASK_ID", text);
    if (slash == std::string_view::npos) {
      const char* count = env("SLURM_ARRAY_TASK_COUNT");
      if (!count || !*count) throw usage_error(fmt::format("--shard {}: SLURM_ARRAY_TASK_COUNT is not set; give auto/N", text));
      c.count = parse_count(count, "SLURM_ARRAY_TASK_COUNT", text);
    }
  } else {
    if (slash == std::string_view::npos) throw usage_error(fmt::format("--shard '{}': give I/N (part I of N, from 0), auto or auto/N", text));
    c.index = parse_count(first, "the part", text);
  }
  if (slash != std::string_view::npos) c.count = parse_count(text.substr(slash + 1), "the number of parts", text);
  if (c.count < 1 || c.count > 100000) throw usage_error(fmt::format("--shard {}: the number of parts must be from 1 to 100000", text));
  if (c.index < 0 || c.index >= c.count)
    throw usage_error(fmt::format("--shard {}: part {} is not one of 0 to {}{}", text, c.index, c.count - 1,
                                  from_slurm ? " (number the array from 0: --array=0-N-1)" : ""));
  return c;
}

std::string plan_digest(const plan& p) {
  // The hash of the plan's JSON text as stored (less what names where it ran), its points streamed
  // one at a time into the hash rather than built into one document: a plan of a million points
  // is hashed in memory the size of one point.
  auto j = p.to_json(false);
  for (const char* k : {"notes", "input_cache", "shard", "merged"}) j.erase(k);
  if (j.contains("calibration"))
    for (auto& t : j["calibration"]["tracks"]) t.erase("stopped"), t.erase("settled");
  if (j.contains("external")) j["external"].erase("cache_dir"), j["external"].erase("cwd");
  const auto text = j.dump();
  constexpr std::string_view empty = ",\"points\":[]";  // keys are sorted: never the first
  const auto at = text.find(empty);
  std::uint64_t h = hash_text(std::string_view(text).substr(0, at + empty.size() - 1));
  std::size_t size = text.size();
  bool first = true;
  for (const auto& pt : p.points) {
    if (!pt.phase.empty()) continue;  // the points a sweep or `ema fit` added later are not the plan's
    const auto one = plan::point_to_json(pt).dump();
    if (!first) h = hash_text(",", h), ++size;
    h = hash_text(one, h);
    size += one.size();
    first = false;
  }
  h = hash_text(std::string_view(text).substr(at + empty.size() - 1), h);
  return fmt::format("{:016x}{:016x}", h, mix64(h ^ size));
}

std::string stored_plan_digest(const plan& p) {
  const auto own = plan_digest(p);
  auto check = [&](const std::string& recorded, const char* what) {
    if (!recorded.empty() && recorded != own)
      throw database_error(
          fmt::format("the plan stored with this {} does not match its digest (it records {}, its plan is {}); the "
                      "database was changed by hand or is damaged",
                      what, recorded, own));
  };
  if (p.merged) {
    check(p.merged->part, "merge");
    return p.merged->digest;
  }
  if (p.shard) {
    check(p.shard->part.empty() && !p.calibrated ? p.shard->digest : p.shard->part, "shard");
    return p.shard->digest;
  }
  return own;
}

std::string cost_key(const std::string& problem, const std::string& variant, std::uint64_t n, const std::string& params_json) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}", problem, variant, n, params_json);
}

point_costs costs_from(const std::string& path) {
  auto db = database::open_read(path);
  point_costs costs;
  for (const auto& e : db.experiments())
    for (const auto& r : db.points(e.id)) {
      if (r.status != point_status::ok) continue;
      const auto it = r.samples.find("point_wall");
      if (it == r.samples.end() || it->second.empty() || !(it->second.front() > 0)) continue;
      auto& c = costs[cost_key(r.problem, r.variant, r.n, r.params_json)];
      c = std::max(c, it->second.front());
    }
  if (costs.empty()) throw usage_error(fmt::format("--costs-from {}: no point ran ok there, so it predicts no cost", path));
  return costs;
}

std::vector<int> split_points(const plan& p, int count, const point_costs* costs) {
  std::vector<int> order(p.points.size()), part(p.points.size(), 0);
  std::vector<double> cost(p.points.size());
  for (std::size_t i = 0; i < p.points.size(); ++i) cost[i] = predicted_cost(p.points[i]);
  if (costs && !costs->empty()) {  // seconds where a previous run has them; the rest scaled to match
    std::vector<double> ratios;
    std::vector<std::optional<double>> seconds(p.points.size());
    for (std::size_t i = 0; i < p.points.size(); ++i) {
      const auto& pt = p.points[i];
      if (const auto it = costs->find(cost_key(pt.problem, pt.variant, pt.n, pt.params.canonical_json())); it != costs->end()) {
        seconds[i] = it->second;
        ratios.push_back(it->second / cost[i]);
      }
    }
    if (!ratios.empty()) {
      std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
      const double scale = ratios[ratios.size() / 2];
      for (std::size_t i = 0; i < p.points.size(); ++i) cost[i] = seconds[i] ? *seconds[i] : cost[i] * scale;
    }
  }
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[static_cast<std::size_t>(a)] > cost[static_cast<std::size_t>(b)]; });
  std::vector<double> load(static_cast<std::size_t>(count), 0);
  for (const int i : order) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    part[static_cast<std::size_t>(i)] = static_cast<int>(least);
    load[least] += cost[static_cast<std::size_t>(i)];
  }
  return part;
}

void apply_shard(plan& p, const shard_choice& c, const point_costs* costs) {
  shard_spec s;
  if (costs && !costs->empty()) {  // named by its content: every task must be given the same times
    std::uint64_t h = 0;
    for (const auto& [k, v] : *costs) h = mix64(h ^ hash_text(k) ^ hash_text(fmt::format("{:.17g}", v)));
    s.basis = fmt::format("times of a previous run ({:016x})", h);
  }
  s.index = c.index;
  s.count = c.count;
  s.digest = plan_digest(p);
  if (p.calibrated) {
    auto& tracks = p.calibrated->tracks;
    s.tracks = static_cast<int>(tracks.size());
    if (c.count > s.tracks)
      throw usage_error(fmt::format("--shard {}/{}: the calibrated plan has {} track{}; give at most {} parts", c.index, c.count, s.tracks,
                                    s.tracks == 1 ? "" : "s", s.tracks));
    std::vector<track> mine;
    for (std::size_t k = 0; k < tracks.size(); ++k)
      if (static_cast<int>(k % static_cast<std::size_t>(c.count)) == c.index) mine.push_back(tracks[k]);
    tracks = std::move(mine);
  }
  if (!p.points.empty()) {
    if (c.count > static_cast<int>(p.points.size()))
      throw usage_error(fmt::format("--shard {}/{}: the plan has {} point{}; give at most {} parts", c.index, c.count, p.points.size(),
                                    p.points.size() == 1 ? "" : "s", p.points.size()));
    const auto part = split_points(p, c.count, costs);
    s.size = static_cast<int>(p.points.size());
    std::vector<plan_point> mine;
    for (std::size_t i = 0; i < part.size(); ++i)
      if (part[i] == c.index) {
        s.ordinals.push_back(static_cast<int>(i));
        mine.push_back(std::move(p.points[i]));
      }
    p.points = std::move(mine);  // its own points, each with its ordinal in the whole plan
  }
  p.shard = std::move(s);
  p.shard->part = plan_digest(p);  // the part as stored: its own points, or a calibrated plan's own tracks
}

}  // namespace ema
