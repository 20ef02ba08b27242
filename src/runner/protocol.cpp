#include "runner/protocol.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace ema {
namespace {

/// j[key] as T, or `fallback` where absent; std::invalid_argument naming the key otherwise.
template <class T>
T field(const nlohmann::json& j, const char* key, std::optional<T> fallback = std::nullopt) {
  if (!j.is_object()) throw std::invalid_argument("not a JSON object");
  const auto it = j.find(key);
  if (it == j.end()) {
    if (fallback) return *fallback;
    throw std::invalid_argument(fmt::format("no field '{}'", key));
  }
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(fmt::format("the field '{}' is not {}", key, std::is_same_v<T, std::string> ? "text" : "of its type"));
  }
}

/// j[key] as a count: a non-negative integer (JSON's -5 would wrap to 2^64 - 5 as a uint64_t).
std::uint64_t count_field(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) throw std::invalid_argument(fmt::format("no field '{}'", key));
  if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<std::int64_t>() < 0))
    throw std::invalid_argument(fmt::format("the field '{}' is not a non-negative integer", key));
  return it->get<std::uint64_t>();
}

nlohmann::json object_field(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return nlohmann::json::object();
  if (!it->is_object()) throw std::invalid_argument(fmt::format("the field '{}' is not an object", key));
  return *it;
}

}  // namespace

nlohmann::json to_json(const point_spec& s) {
  return {{"problem", s.problem},
          {"variant", s.variant},
          {"n", s.n},
          {"params", s.params},
          {"seed", s.seed},
          {"repetitions", s.repetitions.to_json()},
          {"energy", {{"enabled", s.energy.enabled}, {"window", s.energy.window}, {"off", s.energy.off}}},
          {"idle", s.idle},
          {"cache", {{"dir", s.cache_dir}, {"cap", s.cache_cap}}}};
}

point_spec spec_from_json(const nlohmann::json& j) {
  point_spec s;
  s.problem = field<std::string>(j, "problem");
  s.variant = field<std::string>(j, "variant");
  s.n = count_field(j, "n");
  s.params = field<std::map<std::string, std::string>>(j, "params");
  s.seed = count_field(j, "seed");
  s.repetitions = repetition_policy::from_json(object_field(j, "repetitions"));
  const auto energy = object_field(j, "energy");
  const point_spec::energy_plan plain;
  s.energy.enabled = field<bool>(energy, "enabled", plain.enabled);
  s.energy.window = field<double>(energy, "window", plain.window);
  s.energy.off = field<std::string>(energy, "off", plain.off);
  s.idle = object_field(j, "idle");
  const auto cache = object_field(j, "cache");
  s.cache_dir = field<std::string>(cache, "dir", std::string());
  s.cache_cap = field<double>(cache, "cap", 0.0);
  return s;
}

nlohmann::json to_json(const point_answer& a) {
  nlohmann::json j = {{"status", a.status},   {"reason", a.reason}, {"verified", a.verified},      {"result", a.result},
                      {"samples", a.samples}, {"notes", a.notes},   {"unavailable", a.unavailable}};
  if (a.output_error) j["output_error"] = *a.output_error;
  if (a.cpu_seconds) j["cpu_seconds"] = *a.cpu_seconds;
  if (!a.retire.empty()) j["retire"] = a.retire;
  return j;
}

point_answer answer_from_json(const nlohmann::json& j) {
  point_answer a;
  a.status = field<std::string>(j, "status", std::string("failed"));
  a.reason = field<std::string>(j, "reason", std::string());
  a.verified = field<bool>(j, "verified", false);
  if (const auto it = j.find("result"); it != j.end()) a.result = *it;
  a.samples = field<std::map<std::string, std::vector<double>>>(j, "samples", std::map<std::string, std::vector<double>>{});
  a.notes = object_field(j, "notes");
  a.unavailable = field<std::map<std::string, std::string>>(j, "unavailable", std::map<std::string, std::string>{});
  if (j.contains("output_error")) a.output_error = field<std::string>(j, "output_error");
  if (j.contains("cpu_seconds")) a.cpu_seconds = field<double>(j, "cpu_seconds");
  a.retire = field<std::string>(j, "retire", std::string());
  return a;
}

}  // namespace ema
