#include "report/exports.hpp"

#include <cmath>
#include <fmt/format.h>
#include <set>

#include "core/files.hpp"
#include "core/metrics.hpp"
#include "core/registry.hpp"
#include "core/text.hpp"

namespace ema {
nlohmann::json to_run_json(const experiment_view& v) {
  const auto& e = v.experiment;
  nlohmann::json out;
  out["schema"] = "ema.run/1";
  out["experiment"] = {{"id", e.id},
                       {"created_at", e.created_at},
                       {"finished_at", e.finished_at},
                       {"state", e.state},
                       {"command_line", e.command_line},
                       {"ema_version", e.ema_version},
                       {"git_commit", e.git_commit},
                       {"machine", e.machine},
                       {"ceilings", e.ceilings},
                       {"idle_power", e.idle_power}};
  out["points"] = nlohmann::json::array();
  for (const auto& p : v.points) {
    const auto& r = p.record;
    nlohmann::json metrics = nlohmann::json::object();
    for (const auto& [name, m] : p.metrics) {
      metrics[name] = {{"median", m.stats.median}, {"min", m.stats.min}, {"max", m.stats.max}, {"mean", m.stats.mean},
                       {"stddev", m.stats.stddev}, {"unit", m.unit},     {"samples", m.values}};
    }
    if (p.unavailable.is_object())
      for (const auto& [name, why] : p.unavailable.items())
        if (!metrics.contains(name))
          metrics[name] = {{"median", nullptr},
                           {"min", nullptr},
                           {"max", nullptr},
                           {"mean", nullptr},
                           {"stddev", nullptr},
                           {"unit", find_metric(name).unit},
                           {"samples", nlohmann::json::array()},
                           {"unavailable", why}};
    // The variant's algorithm and role as the point recorded them, so every build of ema exports the
    // same; else what this build knows of it (a user's program under `ema exec` has neither).
    const auto* known = lookup_variant(r.problem, r.variant);
    auto noted = [&](const char* key) -> nlohmann::json {
      if (p.notes.is_object() && p.notes.contains(key) && p.notes[key].is_string()) return p.notes[key];
      if (!known) return nullptr;
      return std::string(std::string_view(key) == "algorithm" ? known->algorithm : to_string(known->role));
    };
    out["points"].push_back({{"problem", r.problem},
                             {"variant", r.variant},
                             {"algorithm", noted("algorithm")},
                             {"role", noted("role")},
                             {"backend", r.backend},
                             {"n", r.n},
                             {"params", p.params},
                             {"seed", r.seed},
                             {"instance", r.instance},
                             {"status", std::string(to_string(r.status))},
                             {"reason", r.reason},
                             {"verified", r.verified},
                             {"result", p.result},
                             {"notes", p.notes},
                             {"metrics", metrics}});
  }
  return out;
}

std::string to_csv(const experiment_view& v) {
  std::string out = "experiment,problem,variant,backend,n,params,seed,instance,status,verified,metric,unit,count,median,min,max,mean,stddev,reason\n";
  for (const auto& p : v.points) {
    const auto& r = p.record;
    auto prefix = fmt::format("{},{},{},{},{},{},{},{},{},{}", v.experiment.id, csv_field(r.problem), csv_field(r.variant), r.backend, r.n,
                              csv_field(r.params_json), r.seed, r.instance, to_string(r.status), r.verified ? 1 : 0);
    if (p.metrics.empty()) out += fmt::format("{},,,0,,,,,,{}\n", prefix, csv_field(r.reason));
    for (const auto& [name, m] : p.metrics)
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", prefix, name, m.unit, m.stats.count, m.stats.median, m.stats.min, m.stats.max,
                         m.stats.mean, m.stats.stddev, csv_field(r.reason));
    if (p.unavailable.is_object())
      for (const auto& [name, why] : p.unavailable.items())
        if (!p.metrics.count(name))
          out += fmt::format("{},{},{},0,,,,,,{}\n", prefix, name, find_metric(name).unit, csv_field("unavailable: " + why.get<std::string>()));
  }
  return out;
}

namespace {

/// A parameter's value as a CSV field: a string as it is, anything else as its JSON.
std::string param_field(const nlohmann::json& j) { return csv_field(j.is_string() ? j.get<std::string>() : json_text(j)); }

}  // namespace

std::string to_samples_csv(const experiment_view& v) {
  static const std::set<std::string> fixed = {"experiment", "problem",   "variant",  "backend", "n",    "instance", "seed", "status",
                                              "verified",   "disturbed", "left_out", "metric",  "unit", "sample",   "value"};
  std::set<std::string> keys;
  auto gather = [&](const point_view& p) {
    if (p.params.is_object())
      for (const auto& [k, _] : p.params.items()) keys.insert(k);
  };
  for (const auto& p : v.points) gather(p);
  for (const auto& s : v.set_aside) gather(s.point);
  std::string out = "experiment,problem,variant,backend,n,instance,seed,status,verified,disturbed,left_out";
  for (const auto& k : keys) {
    std::string name = k;
    if (fixed.count(k)) name.insert(0, "param.");
    out += ',';
    out += csv_field(name);
  }
  out += ",metric,unit,sample,value\n";
  auto rows = [&](const point_view& p, const std::string& left_out) {
    const auto& r = p.record;
    auto prefix = fmt::format("{},{},{},{},{},{},{},{},{},{},{}", v.experiment.id, csv_field(r.problem), csv_field(r.variant), csv_field(r.backend),
                              r.n, r.instance, r.seed, to_string(r.status), r.verified ? 1 : 0, disturbed(p) ? 1 : 0, csv_field(left_out));
    for (const auto& k : keys) {
      prefix += ',';
      if (p.params.is_object() && p.params.contains(k)) prefix += param_field(p.params[k]);
    }
    if (p.metrics.empty()) out += prefix + ",,,,\n";
    for (const auto& [name, m] : p.metrics)
      for (std::size_t i = 0; i < m.values.size(); ++i)
        out += fmt::format("{},{},{},{},{}\n", prefix, csv_field(name), csv_field(m.unit), i, m.values[i]);
  };
  for (const auto& p : v.points) rows(p, "");
  for (const auto& s : v.set_aside) rows(s.point, s.why);
  return out;
}

std::string to_extrap_jsonl(const experiment_view& v) {
  std::string out;
  for (const auto& p : v.points) {
    const auto& r = p.record;
    if (r.status != point_status::ok) continue;
    const auto ptext = params_text(r.params_json, ",", r.problem);
    const auto callpath = fmt::format("{}{}->{}", r.problem, ptext.empty() ? "" : " (" + ptext + ")", r.variant);
    for (const auto& [name, m] : p.metrics)
      for (const double x : m.values)
        if (std::isfinite(x))
          out += json_text(nlohmann::json{{"params", {{"n", r.n}}}, {"callpath", callpath}, {"metric", name}, {"value", x}}) + "\n";
  }
  return out;
}

void write_text(const std::string& path, const std::string& text) { replace_file(path, text); }

}  // namespace ema
