#include "core/params.hpp"

#include <charconv>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"

namespace ema {
namespace {

bool parse_integer(std::string_view v, std::int64_t& out) {
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc{} && p == v.data() + v.size() && !v.empty();
}

bool parse_real(std::string_view v, double& out) {
  if (v.empty()) return false;
  std::string s(v);
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

bool parse_boolean(std::string_view v, bool& out) {
  if (v == "true" || v == "1" || v == "yes" || v == "on") return out = true, true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return out = false, true;
  return false;
}

std::string valid_names(std::span<const param_spec> specs) {
  if (specs.empty()) return "this problem takes no parameters";
  std::vector<std::string> names;
  for (const auto& s : specs) names.emplace_back(s.name);
  return fmt::format("valid parameters: {}", fmt::join(names, ", "));
}

void check_value(std::string_view problem, const param_spec& spec, std::string_view value) {
  std::int64_t i = 0;
  double d = 0;
  bool b = false;
  switch (spec.kind) {
    case param_kind::integer:
      if (!parse_integer(value, i))
        throw usage_error(fmt::format("parameter '{}' of {} must be an integer, got '{}'", spec.name, problem, value));
      return;
    case param_kind::real:
      if (!parse_real(value, d))
        throw usage_error(fmt::format("parameter '{}' of {} must be a number, got '{}'", spec.name, problem, value));
      return;
    case param_kind::boolean:
      if (!parse_boolean(value, b))
        throw usage_error(fmt::format("parameter '{}' of {} must be true or false, got '{}'", spec.name, problem, value));
      return;
    case param_kind::choice: {
      auto choices = split_choices(spec.choices);
      for (const auto& c : choices)
        if (c == value) return;
      throw usage_error(fmt::format("parameter '{}' of {} must be one of {}, got '{}'", spec.name, problem,
                                    fmt::join(choices, "|"), value));
    }
    case param_kind::text: return;
  }
}

}  // namespace

std::vector<std::string> split_choices(const char* choices) {
  std::vector<std::string> out;
  if (!choices) return out;
  std::string_view s(choices);
  while (!s.empty()) {
    auto bar = s.find('|');
    out.emplace_back(s.substr(0, bar));
    if (bar == std::string_view::npos) break;
    s.remove_prefix(bar + 1);
  }
  return out;
}

param_set param_set::resolve(std::string_view problem, std::span<const param_spec> specs,
                             const std::vector<std::string>& assignments) {
  param_set out;
  for (const auto& spec : specs) out.values_[spec.name] = spec.default_value;
  for (const auto& a : assignments) {
    auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw usage_error(fmt::format("parameter '{}' must be written key=value", a));
    std::string key = a.substr(0, eq), value = a.substr(eq + 1);
    const param_spec* spec = nullptr;
    for (const auto& s : specs)
      if (key == s.name) spec = &s;
    if (!spec)
      throw usage_error(fmt::format("unknown parameter '{}' for problem {}; {}", key, problem, valid_names(specs)));
    check_value(problem, *spec, value);
    out.values_[key] = value;
  }
  return out;
}

param_set param_set::from_map(param_map values) {
  param_set out;
  out.values_ = std::move(values);
  return out;
}

const std::string& param_set::text(std::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error(fmt::format("parameter '{}' was not declared", key));
  return it->second;
}

std::int64_t param_set::integer(std::string_view key) const {
  std::int64_t v = 0;
  if (!parse_integer(text(key), v)) throw std::logic_error(fmt::format("parameter '{}' is not an integer", key));
  return v;
}

double param_set::real(std::string_view key) const {
  double v = 0;
  if (!parse_real(text(key), v)) throw std::logic_error(fmt::format("parameter '{}' is not a number", key));
  return v;
}

bool param_set::boolean(std::string_view key) const {
  bool v = false;
  if (!parse_boolean(text(key), v)) throw std::logic_error(fmt::format("parameter '{}' is not a boolean", key));
  return v;
}

std::string param_set::canonical_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : values_) j[k] = v;
  return j.dump();
}

std::string param_set::short_text() const {
  std::vector<std::string> parts;
  for (const auto& [k, v] : values_) parts.push_back(k + "=" + v);
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace ema
