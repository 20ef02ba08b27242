#include "runner/plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/sizes.hpp"
#include "inputs/random.hpp"

namespace ema {

std::uint64_t point_seed(std::uint64_t base, const std::string& problem, std::uint64_t n, const param_set& params) {
  return mix64(mix64(base) ^ hash_text(problem) ^ mix64(n) ^ hash_text(params.canonical_json())) >> 1;
}

plan make_plan(const plan_request& r) {
  std::vector<const problem_desc*> chosen;
  if (r.all) {
    chosen = problems();
  } else {
    if (r.problems.empty()) throw usage_error("name a problem or give --all (see `ema list`)");
    for (const auto& name : r.problems) chosen.push_back(&find_problem(name));
  }

  // A parameter must belong to at least one chosen problem; with several problems each takes
  // the ones it declares.
  std::set<std::string> claimed;
  plan out;
  out.seed = r.seed;
  for (const auto* p : chosen) {
    std::vector<std::string> mine;
    for (const auto& a : r.params) {
      auto key = a.substr(0, a.find('='));
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
        if (auto a = available(*v); !a.ok) {
          out.notes.push_back(fmt::format("{} {}: left out ({})", p->name, v->name, a.reason));
          continue;
        }
        vs.push_back(v);
      }
    } else {
      for (const auto& name : r.variants) {
        if (chosen.size() > 1) {
          bool has = false;
          for (const auto* v : variants_of(p->name)) has |= name == v->name;
          if (!has) continue;
        }
        vs.push_back(&find_variant(p->name, name));
      }
    }
    auto sizes = parse_sizes(r.sizes ? *r.sizes : std::string(p->default_sizes));
    for (auto n : sizes) {
      auto seed = point_seed(r.seed, p->name, n, params);
      for (const auto* v : vs) {
        plan_point pt;
        pt.ordinal = static_cast<int>(out.points.size());
        pt.problem = p->name;
        pt.variant = v->name;
        pt.n = n;
        pt.params = params;
        pt.seed = seed;
        out.points.push_back(std::move(pt));
      }
    }
  }
  for (const auto& a : r.params)
    if (!claimed.count(a))
      throw usage_error(fmt::format("parameter '{}' belongs to none of the chosen problems", a));
  if (!r.variants.empty() && out.points.empty())
    throw usage_error(fmt::format("none of the variants {} belongs to the chosen problems", fmt::join(r.variants, ",")));
  return out;
}

nlohmann::json plan::to_json() const {
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& p : points) {
    nlohmann::json params_json = nlohmann::json::object();
    for (const auto& [k, v] : p.params.values()) params_json[k] = v;
    pts.push_back({{"ordinal", p.ordinal}, {"problem", p.problem}, {"variant", p.variant}, {"n", p.n},
                   {"params", params_json}, {"seed", p.seed}});
  }
  nlohmann::json rj = {{"warmup", reps.warmup}, {"min_reps", reps.min_reps}, {"max_reps", reps.max_reps},
                       {"target_rse", reps.target_rse}, {"min_time", reps.min_time}, {"max_time", reps.max_time}};
  if (reps.fixed) rj["fixed"] = *reps.fixed;
  return {{"points", pts},
          {"repetitions", rj},
          {"energy", {{"enabled", energy.enabled}, {"window", energy.window}}},
          {"timeout", timeout},
          {"seed", seed},
          {"notes", notes}};
}

plan plan::from_json(const nlohmann::json& j) {
  plan p;
  for (const auto& x : j.at("points")) {
    plan_point pt;
    pt.ordinal = x.at("ordinal").get<int>();
    pt.problem = x.at("problem").get<std::string>();
    pt.variant = x.at("variant").get<std::string>();
    pt.n = x.at("n").get<std::uint64_t>();
    param_map m;
    for (const auto& [k, v] : x.at("params").items()) m[k] = v.get<std::string>();
    pt.params = param_set::from_map(std::move(m));
    pt.seed = x.at("seed").get<std::uint64_t>();
    p.points.push_back(std::move(pt));
  }
  const auto& r = j.at("repetitions");
  p.reps.warmup = r.at("warmup").get<int>();
  p.reps.min_reps = r.at("min_reps").get<int>();
  p.reps.max_reps = r.at("max_reps").get<int>();
  p.reps.target_rse = r.at("target_rse").get<double>();
  p.reps.min_time = r.value("min_time", p.reps.min_time);
  p.reps.max_time = r.at("max_time").get<double>();
  if (r.contains("fixed")) p.reps.fixed = r.at("fixed").get<int>();
  p.energy.enabled = j.at("energy").at("enabled").get<bool>();
  p.energy.window = j.at("energy").at("window").get<double>();
  p.timeout = j.at("timeout").get<double>();
  p.seed = j.at("seed").get<std::uint64_t>();
  p.notes = j.value("notes", std::vector<std::string>{});
  return p;
}

}  // namespace ema
