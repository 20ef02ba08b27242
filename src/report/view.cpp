#include "report/view.hpp"

#include <cmath>

#include "core/metrics.hpp"

namespace ema {

double point_view::median(const std::string& metric) const {
  auto it = metrics.find(metric);
  return it == metrics.end() || it->second.stats.count == 0 ? std::nan("") : it->second.stats.median;
}

experiment_view load_experiment(database& db, std::int64_t id) {
  experiment_view v;
  v.experiment = db.experiment(id).value();
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
  return v;
}

std::string params_text(const std::string& params_json, const char* separator) {
  auto j = nlohmann::json::parse(params_json, nullptr, false);
  std::string s;
  if (j.is_object())
    for (const auto& [k, val] : j.items())
      s += (s.empty() ? "" : separator) + k + "=" + (val.is_string() ? val.get<std::string>() : val.dump());
  return s;
}

}  // namespace ema
