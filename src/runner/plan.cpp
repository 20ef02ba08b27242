#include "runner/plan.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "measure/gpu.hpp"
#include "core/sizes.hpp"
#include "inputs/random.hpp"
#include "measure/stats.hpp"

namespace ema {
namespace {

nlohmann::json params_object(const param_set& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : p.values()) j[k] = v;
  return j;
}

param_set params_from_object(const nlohmann::json& j) {
  param_map m;
  for (const auto& [k, v] : j.items()) m[k] = v.get<std::string>();
  return param_set::from_map(std::move(m));
}

}  // namespace

std::uint64_t point_seed(std::uint64_t base, const std::string& problem, std::uint64_t n, const param_set& params,
                         int instance) {
  const auto seed = mix64(mix64(base) ^ hash_text(problem) ^ mix64(n) ^ hash_text(params.canonical_json())) >> 1;
  return instance == 0 ? seed : mix64(seed ^ mix64(static_cast<std::uint64_t>(instance))) >> 1;
}

bool repetition_policy::satisfied(const std::vector<double>& totals, double elapsed) const {
  const int k = static_cast<int>(totals.size());
  if (fixed) return k >= *fixed;
  if (k >= max_reps) return true;
  if (k < min_reps) return false;
  if (elapsed >= max_time) return true;
  return elapsed >= min_time && median_rse(totals) <= target_rse;
}

nlohmann::json repetition_policy::to_json() const {
  nlohmann::json j = {{"warmup", warmup},     {"min_reps", min_reps}, {"max_reps", max_reps},
                      {"target_rse", target_rse}, {"min_time", min_time}, {"max_time", max_time}};
  if (fixed) j["fixed"] = *fixed;
  return j;
}

repetition_policy repetition_policy::from_json(const nlohmann::json& j) {
  repetition_policy p;
  p.warmup = j.value("warmup", p.warmup);
  p.min_reps = j.value("min_reps", p.min_reps);
  p.max_reps = j.value("max_reps", p.max_reps);
  p.target_rse = j.value("target_rse", p.target_rse);
  p.min_time = j.value("min_time", p.min_time);
  p.max_time = j.value("max_time", p.max_time);
  if (j.contains("fixed")) p.fixed = j.at("fixed").get<int>();
  return p;
}

void plan::add(const std::string& problem, const std::string& variant, std::uint64_t n, const param_set& params,
               const std::string& phase) {
  for (int k = 0; k < instances; ++k) {
    plan_point pt;
    pt.ordinal = points.empty() ? 0 : points.back().ordinal + 1;
    pt.problem = problem;
    pt.variant = variant;
    pt.n = n;
    pt.params = params;
    pt.seed = point_seed(seed, problem, n, params, k);
    pt.instance = k;
    pt.phase = phase;
    points.push_back(std::move(pt));
  }
}

void check_sweep_shape(const plan_request& r) {
  if (r.instances < 1 || r.instances > max_instances)
    throw usage_error(fmt::format("--instances must be between 1 and {}, got {}", max_instances, r.instances));
  if (r.budget && r.sizes) throw usage_error("give either --budget (sizes chosen by calibration) or --sizes, not both");
  if (!r.budget && (r.start || r.max_size)) throw usage_error("--start and --max-size shape a calibrated sweep; give --budget");
  if (r.start && *r.start < 1) throw usage_error("--start must be at least 1");
  if (r.max_size && *r.max_size < 1) throw usage_error("--max-size must be at least 1");
  if (r.start && r.max_size && *r.start > *r.max_size)
    throw usage_error(fmt::format("--start {} is larger than --max-size {}", *r.start, *r.max_size));
}

plan make_plan(const plan_request& r) {
  std::vector<const problem_desc*> chosen;
  if (r.all) {
    chosen = problems();
  } else {
    if (r.problems.empty()) throw usage_error("name a problem or give --all (see `ema list`)");
    for (const auto& name : r.problems) chosen.push_back(&find_problem(name));
  }

  check_sweep_shape(r);
  for (std::size_t i = 0; i < r.variants.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (r.variants[i] == r.variants[k]) throw usage_error(fmt::format("--variants names '{}' twice", r.variants[i]));
  std::set<std::string> claimed;
  plan out;
  out.seed = r.seed;
  out.instances = r.instances;
  // A parameter must belong to at least one chosen problem; with several problems each takes
  // the ones it declares.
  for (const auto* p : chosen) {
    std::vector<std::string> mine, launch;
    for (const auto& a : r.params) {
      auto key = a.substr(0, a.find('='));
      if (key.starts_with(launch_prefix)) {  // a variant's launch override: checked once the variants are known
        launch.push_back(a);
        continue;
      }
      bool declared = false;
      for (const auto& s : p->params) declared |= key == s.name;
      if (declared || chosen.size() == 1) {
        mine.push_back(a);
        claimed.insert(a);
      }
    }
    auto params = param_set::resolve(p->name, p->params, mine);

    std::vector<const variant_desc*> vs;
    if (r.variants.empty()) {
      for (const auto* v : variants_of(p->name)) {
        if (auto a = available(v->backend); !a.ok) {
          out.notes.push_back(fmt::format("{} {}: left out ({})", p->name, v->name, a.reason));
          continue;
        }
        vs.push_back(v);
      }
    } else {
      for (const auto& name : r.variants) {
        if (chosen.size() > 1) {
          if (!lookup_variant(p->name, name)) continue;
        }
        vs.push_back(&find_variant(p->name, name));
      }
    }
    // Each launch override goes to the variants that declare the setting, checked against its range.
    std::map<const variant_desc*, param_set> own;
    for (const auto* v : vs) own.emplace(v, params);
    for (const auto& a : launch) {
      const auto eq = a.find('=');
      for (const auto& b : launch)
        if (&b != &a && b.substr(0, b.find('=')) == a.substr(0, eq))
          throw usage_error(fmt::format("parameter '{}' is given twice", a.substr(0, eq)));
      const std::string key = a.substr(0, eq), field = key.substr(launch_prefix.size());
      const std::string value = eq == std::string::npos ? std::string() : a.substr(eq + 1);
      bool taken = false;
      std::set<std::string> offered;
      for (const auto* v : vs)
        for (const auto& f : v->launch) {
          offered.insert(fmt::format("launch.{}", f.name));
          if (field != f.name) continue;
          check_launch_value(f, fmt::format("{} {}", p->name, v->name), value);
          own[v] = own[v].with(key, value);
          taken = true;
        }
      if (!taken && chosen.size() > 1) continue;  // another chosen problem's, or none's (said below)
      if (!taken) {
        std::vector<std::string> names;
        for (const auto* v : vs) names.emplace_back(v->name);
        throw usage_error(fmt::format("'{}' is a launch setting of none of the chosen variants of {} ({}); {}", key, p->name,
                                      fmt::join(names, ", "),
                                      offered.empty() ? std::string("they have none (`ema list` shows each variant's)")
                                                      : fmt::format("theirs: {}", fmt::join(offered, ", "))));
      }
      claimed.insert(a);
    }
    auto too_large = [&](std::uint64_t n, const char* what) {
      if (p->max_size && n > p->max_size)
        throw usage_error(fmt::format("{} {} is larger than the largest size problem {} can represent ({})", what, n, p->name,
                                      p->max_size));
    };
    // An input read from a file sets n: it is the one size, and a calibration has nothing to grow.
    const std::uint64_t from_file = p->size_from_input ? p->size_from_input(params) : 0;
    if (from_file && r.budget)
      throw usage_error(fmt::format("{}: the input file sets n = {}; give no --budget with it", p->name, from_file));
    if (r.budget) {
      if (!out.calibrated) out.calibrated = calibration{.budget = *r.budget};
      const auto start = r.start.value_or(parse_sizes(p->default_sizes).front());
      too_large(start, "--start");
      const auto largest = p->max_size && r.max_size ? std::min(*r.max_size, p->max_size) : r.max_size.value_or(p->max_size);
      if (p->validate) p->validate(params, std::span<const std::uint64_t>(&start, 1));
      for (const auto* v : vs) out.calibrated->tracks.push_back({p->name, v->name, own.at(v), start, largest, "", ""});
      continue;
    }
    const auto sizes = r.sizes ? parse_sizes(*r.sizes)
                       : from_file ? std::vector<std::uint64_t>{from_file}
                                   : parse_sizes(std::string(p->default_sizes));
    for (auto n : sizes) too_large(n, "size");
    if (p->validate) p->validate(params, sizes);
    if (static_cast<double>(sizes.size()) * static_cast<double>(vs.size()) * r.instances + static_cast<double>(out.points.size()) >
        static_cast<double>(max_plan_points))
      throw usage_error(fmt::format("the plan would have more than {} points ({} sizes, {} variants, {} instances of {}); "
                                    "run fewer at a time",
                                    max_plan_points, sizes.size(), vs.size(), r.instances, p->name));
    for (auto n : sizes)
      for (const auto* v : vs) out.add(p->name, v->name, n, own.at(v));
  }
  for (const auto& a : r.params)
    if (!claimed.count(a))
      throw usage_error(fmt::format("parameter '{}' belongs to none of the chosen problems", a));
  if (!r.variants.empty() && out.points.empty() && (!out.calibrated || out.calibrated->tracks.empty()))
    throw usage_error(fmt::format("none of the variants {} belongs to the chosen problems", fmt::join(r.variants, ",")));
  return out;
}

nlohmann::json plan::to_json() const {
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& p : points) {
    nlohmann::json pj = {{"ordinal", p.ordinal}, {"problem", p.problem}, {"variant", p.variant}, {"n", p.n},
                         {"params", params_object(p.params)}, {"seed", p.seed}, {"instance", p.instance}};
    if (!p.phase.empty()) pj["phase"] = p.phase;
    pts.push_back(std::move(pj));
  }
  nlohmann::json out = {{"points", pts},
                        {"repetitions", reps.to_json()},
                        {"energy", {{"enabled", energy.enabled}, {"window", energy.window}}},
                        {"timeout", timeout},
                        {"seed", seed},
                        {"instances", instances},
                        {"notes", notes}};
  if (calibrated) {
    nlohmann::json tracks = nlohmann::json::array();
    for (const auto& t : calibrated->tracks)
      tracks.push_back({{"problem", t.problem}, {"variant", t.variant}, {"params", params_object(t.params)},
                        {"start", t.start}, {"max_size", t.max_size}, {"stopped", t.stopped}, {"settled", t.settled}});
    out["budget"] = calibrated->budget;
    out["calibration"] = {{"min_sizes", calibrated->min_sizes}, {"growth", calibrated->growth},
                          {"energy_sizes", calibrated->energy_sizes}, {"tracks", tracks}};
  }
  if (external) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& [name, command] : external->runs) runs.push_back({{"variant", name}, {"command", command}});
    out["external"] = {{"generator", external->generator}, {"runs", runs}, {"cache_dir", external->cache_dir},
                       {"cache_cap", external->cache_cap}, {"cwd", external->cwd}};
  }
  return out;
}

namespace {
plan read_plan(const nlohmann::json& j);
}

plan plan::from_json(const nlohmann::json& j) {
  try {
    auto p = read_plan(j);
    const auto& r = p.reps;
    auto bad = [](const std::string& what) {
      throw database_error("the stored plan " + what + "; it was changed by hand or is damaged");
    };
    if (!(std::isfinite(p.timeout) && p.timeout > 0)) bad("has a timeout that is not a positive number");
    if (r.warmup < 0 || r.min_reps < 1 || r.max_reps < 1 || (r.fixed && *r.fixed < 1)) bad("has impossible repetition counts");
    if (!(std::isfinite(r.min_time) && std::isfinite(r.max_time) && std::isfinite(r.target_rse) && r.min_time >= 0))
      bad("has repetition times that are not finite");
    if (!(std::isfinite(p.energy.window) && p.energy.window > 0)) bad("has an energy window that is not a positive number");
    if (p.instances < 1 || p.instances > max_instances) bad("has an impossible number of instances");
    if (p.points.size() > max_plan_points) bad("has more points than a plan may hold");
    for (std::size_t i = 0; i < p.points.size(); ++i)
      if (p.points[i].ordinal != static_cast<int>(i) || p.points[i].instance < 0) bad("numbers its points out of order");
    if (p.calibrated && !(std::isfinite(p.calibrated->budget) && p.calibrated->budget > 0 && p.calibrated->growth > 1 &&
                          std::isfinite(p.calibrated->growth) && p.calibrated->min_sizes >= 1 && p.calibrated->min_sizes <= 1000))
      bad("has an impossible calibration");
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw database_error(fmt::format("the stored plan is malformed ({}); it was changed by hand or is damaged", e.what()));
  }
}

namespace {

plan read_plan(const nlohmann::json& j) {
  plan p;
  for (const auto& x : j.at("points")) {
    plan_point pt;
    pt.ordinal = x.at("ordinal").get<int>();
    pt.problem = x.at("problem").get<std::string>();
    pt.variant = x.at("variant").get<std::string>();
    pt.n = x.at("n").get<std::uint64_t>();
    pt.params = params_from_object(x.at("params"));
    pt.seed = x.at("seed").get<std::uint64_t>();
    pt.instance = x.value("instance", 0);
    pt.phase = x.value("phase", "");
    p.points.push_back(std::move(pt));
  }
  p.reps = repetition_policy::from_json(j.at("repetitions"));
  p.energy.enabled = j.at("energy").at("enabled").get<bool>();
  p.energy.window = j.at("energy").at("window").get<double>();
  p.timeout = j.at("timeout").get<double>();
  p.seed = j.at("seed").get<std::uint64_t>();
  p.notes = j.value("notes", std::vector<std::string>{});
  p.instances = j.value("instances", 1);
  if (j.contains("calibration")) {
    calibration c;
    c.budget = j.at("budget").get<double>();
    const auto& cj = j.at("calibration");
    c.min_sizes = cj.value("min_sizes", 12);
    c.growth = cj.value("growth", 2.0);
    c.energy_sizes = cj.value("energy_sizes", 5);
    for (const auto& t : cj.at("tracks"))
      c.tracks.push_back({t.at("problem").get<std::string>(), t.at("variant").get<std::string>(),
                          params_from_object(t.at("params")), t.at("start").get<std::uint64_t>(),
                          t.value("max_size", std::uint64_t{0}), t.value("stopped", ""), t.value("settled", "")});
    p.calibrated = std::move(c);
  }
  if (j.contains("external")) {
    const auto& x = j.at("external");
    external_program e;
    e.generator = x.at("generator").get<std::string>();
    for (const auto& r : x.at("runs")) e.runs.emplace_back(r.at("variant").get<std::string>(), r.at("command").get<std::string>());
    e.cache_dir = x.value("cache_dir", "");
    e.cache_cap = x.value("cache_cap", 0.0);
    e.cwd = x.value("cwd", "");
    p.external = std::move(e);
  }
  return p;
}

}  // namespace

}  // namespace ema
