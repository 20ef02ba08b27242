#include "report/view.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <tuple>

#include "core/errors.hpp"
#include "core/launch.hpp"
#include "core/metrics.hpp"
#include "core/text.hpp"
#include "runner/plan.hpp"
#include "store/remeasured.hpp"

namespace ema {

const params_view& point_view::parameters() const {
  if (!parameters_) {
    const problem_desc* desc = lookup_problem(record.problem);
    parameters_ = params_view{desc ? param_set::restore_json(desc->name, desc->params, record.params_json) : std::nullopt,
                              split_tuning(record.params_json, record.problem)};
  }
  return *parameters_;
}

double point_view::median(const std::string& metric) const {
  auto it = metrics.find(metric);
  return it == metrics.end() || it->second.stats.count == 0 ? std::nan("") : it->second.stats.median;
}

namespace {

// The fields of an experiment's stored JSON that reports read, checked to have the types ema writes
// (measure/machine.cpp, measure/probe.cpp, the idle power), so that a row changed by hand is a
// database error, not a report that throws halfway.
void check_stored(const experiment_record& e, const std::string& path) {
  auto fail = [&](const std::string& what) {
    throw database_error(fmt::format("database {}: experiment {} has {}; it was changed by hand or is damaged", path, e.id, what));
  };
  auto field = [&](const nlohmann::json& j, const char* key, auto&& ok, const std::string& what) {
    if (j.is_object() && j.contains(key) && !ok(j.at(key))) fail(what);
  };
  const auto is_object = [](const nlohmann::json& x) { return x.is_object(); };
  const auto is_string = [](const nlohmann::json& x) { return x.is_string(); };
  const auto is_number = [](const nlohmann::json& x) { return x.is_number(); };
  const auto number_or_null = [](const nlohmann::json& x) { return x.is_number() || x.is_null(); };
  const auto& m = e.machine;
  field(m, "host", is_object, "a machine without a host object");
  if (m.contains("host")) {
    for (const char* k : {"cpu_model", "hostname", "kernel"}) field(m["host"], k, is_string, fmt::format("a host {} that is not text", k));
    for (const char* k : {"logical_cores", "memory_bytes", "openmp_threads"})
      field(m["host"], k, is_number, fmt::format("a host {} that is not a number", k));
  }
  field(m, "cuda", is_object, "a machine whose cuda entry is not an object");
  if (m.contains("cuda"))
    for (const char* k : {"driver", "runtime", "driver_api"}) field(m["cuda"], k, is_string, fmt::format("a CUDA {} that is not text", k));
  field(
      m, "gpus", [](const nlohmann::json& x) { return x.is_array(); }, "a machine whose gpus are not a list");
  for (const auto& g : m.value("gpus", nlohmann::json::array())) {
    if (!g.is_object()) fail("a GPU that is not an object");
    field(g, "name", is_string, "a GPU name that is not text");
    for (const char* k : {"resident_threads", "sm_count", "memory_bytes"}) field(g, k, is_number, fmt::format("a GPU {} that is not a number", k));
  }
  for (const auto& [name, c] : e.ceilings.items()) {
    if (!c.is_object()) fail(fmt::format("a ceiling {} that is not an object", valid_utf8(name)));
    field(c, "value", is_number, fmt::format("a ceiling {} whose value is not a number", valid_utf8(name)));
    for (const char* k : {"unit", "detail", "unavailable"})
      field(c, k, is_string, fmt::format("a ceiling {} whose {} is not text", valid_utf8(name), k));
  }
  field(
      e.idle_power, "energy_gpu", [&](const nlohmann::json& x) { return x.is_array() && std::all_of(x.begin(), x.end(), number_or_null); },
      "an idle GPU power that is not a list of numbers");
  for (const char* k : {"energy_cpu", "energy_dram"}) field(e.idle_power, k, number_or_null, fmt::format("an idle {} power that is not a number", k));
  try {
    if (!e.plan.empty()) (void)plan::from_json(e.plan);
  } catch (const database_error& x) {
    throw database_error(fmt::format("database {}, experiment {}: {}", path, e.id, x.what()));
  }
}

// Sets aside the points that a later or quieter measurement of the same point replaces (view.hpp).
void set_aside_remeasured(experiment_view& v) {
  std::vector<const point_record*> records;
  for (const auto& p : v.points) records.push_back(&p.record);
  auto why = set_aside_reasons(records);
  std::vector<point_view> kept;
  for (std::size_t i = 0; i < v.points.size(); ++i) {
    if (why[i].empty())
      kept.push_back(std::move(v.points[i]));
    else
      v.set_aside.push_back({std::move(v.points[i]), std::move(why[i])});
  }
  v.points = std::move(kept);
}

}  // namespace

std::optional<std::string> disturbed(const point_view& p) { return disturbance_note(p.notes); }

experiment_view load_experiment(database& db, std::int64_t id) {
  experiment_view v;
  v.experiment = db.experiment(id).value();
  check_stored(v.experiment, db.path());
  for (auto& r : db.points(id)) {
    point_view p;
    p.params = nlohmann::json::parse(r.params_json, nullptr, false);
    p.result = nlohmann::json::parse(r.result_json, nullptr, false);
    p.notes = nlohmann::json::parse(r.notes_json, nullptr, false);
    p.unavailable = nlohmann::json::parse(r.unavailable_json, nullptr, false);
    for (const auto& [name, values] : r.samples) {
      metric_view m;
      m.unit = find_metric(name).unit;
      m.stats = summarize(values);
      m.values = values;
      p.metrics[name] = std::move(m);
    }
    p.record = std::move(r);
    v.points.push_back(std::move(p));
  }
  set_aside_remeasured(v);
  return v;
}

std::string params_text(const std::string& params_json, const char* separator, std::string_view problem) {
  auto j = nlohmann::json::parse(params_json, nullptr, false);
  const problem_desc* desc = problem.empty() ? nullptr : lookup_problem(problem);
  auto at_default = [&](const std::string& k, const std::string& value) {
    if (!desc) return false;
    for (const auto& spec : desc->params)
      if (k == spec.name) return value == spec.default_value;
    return false;
  };
  std::string s;
  if (j.is_object())
    for (const auto& [k, val] : j.items()) {
      const auto text = val.is_string() ? val.get<std::string>() : val.dump();
      if (!at_default(k, text)) s += (s.empty() ? "" : separator) + k + "=" + text;
    }
  return s;
}

tuning_split split_tuning(const std::string& params_json, std::string_view problem) {
  tuning_split out{params_json, ""};
  const problem_desc* desc = lookup_problem(problem);
  auto j = nlohmann::json::parse(params_json, nullptr, false);
  if (!desc || !j.is_object()) return out;
  for (const auto& spec : desc->params) {
    if (!spec.tuning || !j.contains(spec.name)) continue;
    const auto& val = j[spec.name];
    const auto text = val.is_string() ? val.get<std::string>() : val.dump();
    if (text != spec.default_value) out.tuning += (out.tuning.empty() ? "" : ",") + std::string(spec.name) + "=" + text;
    j.erase(spec.name);
  }
  // A launch setting overridden for the variants that have it (`launch.omp_threads=4`, an OpenMP
  // variant's processor axis; core/launch.hpp) labels the row as a tuning value does: the variant at
  // each setting beside the others in one table, its speedups against the same baselines.
  std::vector<std::string> launch;
  for (const auto& [key, val] : j.items())
    if (key.starts_with(launch_prefix)) launch.push_back(key);
  for (const auto& key : launch) {
    const auto& val = j[key];
    out.tuning += (out.tuning.empty() ? "" : ",") + key.substr(launch_prefix.size()) + "=" + (val.is_string() ? val.get<std::string>() : val.dump());
    j.erase(key);
  }
  out.rest = j.dump();
  return out;
}

std::vector<variant_identity> variant_identities(const experiment_view& v, std::string_view problem) {
  std::vector<variant_identity> out;
  for (const auto& p : v.points) {
    if (p.record.problem != problem) continue;
    if (std::any_of(out.begin(), out.end(), [&](const auto& id) { return id.name == p.record.variant; })) continue;
    auto id = identity_of(problem, p.record.variant);
    if (p.notes.is_object() && p.notes.contains("algorithm") && p.notes["algorithm"].is_string()) {
      id.algorithm = p.notes["algorithm"].get<std::string>();
      id.role = p.notes.contains("role") && p.notes["role"].is_string() ? variant_role_from_string(p.notes["role"].get<std::string>())
                                                                        : variant_role::unset;
    }
    if (auto b = backend_from_string(p.record.backend)) id.back_end = b;
    out.push_back(std::move(id));
  }
  return out;
}

std::string stored_algorithm(const experiment_view& v, std::string_view problem, std::string_view variant) {
  for (const auto& id : variant_identities(v, problem))
    if (id.name == variant) return id.algorithm;
  return "";
}

std::string speedup_baseline_among(const std::vector<variant_identity>& ids, std::string_view problem, std::string_view variant, backend against,
                                   const std::function<bool(std::string_view)>& present) {
  std::vector<variant_identity> kept;
  for (const auto& id : ids)
    if (present(id.name)) kept.push_back(id);
  return speedup_baseline(variant, against, kept, reference_algorithm(problem));
}

std::string speedup_caveat(const std::vector<variant_identity>& ids, std::string_view problem, std::string_view variant, std::string_view base) {
  const variant_identity *mine = nullptr, *theirs = nullptr;
  for (const auto& id : ids) {
    if (id.name == variant) mine = &id;
    if (id.name == base) theirs = &id;
  }
  if (!mine || !theirs || mine->algorithm.empty() || mine->algorithm != theirs->algorithm) return {};
  const auto* desc = lookup_variant(problem, variant);
  return desc && desc->speedup_caveat ? desc->speedup_caveat : std::string();
}

}  // namespace ema
