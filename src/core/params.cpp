#include "core/params.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/launch.hpp"
#include "core/text.hpp"

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
  return end == s.c_str() + s.size() && std::isfinite(out);
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

// Checks a value against its kind; returns it as stored (a path made absolute, when `files`: it
// must then name a regular file).
std::string check_value(std::string_view problem, const param_spec& spec, std::string_view value, bool files = true) {
  std::int64_t i = 0;
  double d = 0;
  bool b = false;
  if (!is_utf8(value))
    throw usage_error(
        fmt::format("parameter '{}' of {}: '{}' is not UTF-8 text (ema stores parameters as JSON)", spec.name, problem, valid_utf8(value)));
  switch (spec.kind) {
    case param_kind::integer:
      if (!parse_integer(value, i))
        throw usage_error(fmt::format("parameter '{}' of {} must be an integer between {} and {}, got '{}'", spec.name, problem,
                                      std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), value));
      return std::string(value);
    case param_kind::real:
      if (!parse_real(value, d)) throw usage_error(fmt::format("parameter '{}' of {} must be a finite number, got '{}'", spec.name, problem, value));
      return std::string(value);
    case param_kind::boolean:
      if (!parse_boolean(value, b)) throw usage_error(fmt::format("parameter '{}' of {} must be true or false, got '{}'", spec.name, problem, value));
      return std::string(value);
    case param_kind::choice: {
      auto choices = split_choices(spec.choices);
      for (const auto& c : choices)
        if (c == value) return std::string(value);
      throw usage_error(fmt::format("parameter '{}' of {} must be one of {}, got '{}'", spec.name, problem, fmt::join(choices, "|"), value));
    }
    case param_kind::text:
    case param_kind::output:
      return std::string(value);
    case param_kind::path: {
      if (value.empty() || !files) return std::string(value);
      const std::string path(value);
      require_regular_file(path, fmt::format("parameter '{}' of {}:", spec.name, problem));
      std::error_code ec;
      auto absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
      if (ec || !is_utf8(absolute))
        throw usage_error(fmt::format("parameter '{}' of {}: cannot make {} an absolute UTF-8 path", spec.name, problem, path));
      return absolute;
    }
  }
  return std::string(value);
}

}  // namespace

std::string output_file_at(const std::string& pattern, std::uint64_t n) {
  std::string out = pattern;
  const auto size = std::to_string(n);
  for (auto at = out.find("{n}"); at != std::string::npos; at = out.find("{n}", at + size.size())) out.replace(at, 3, size);
  return out;
}

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

param_set param_set::resolve(std::string_view problem, std::span<const param_spec> specs, const std::vector<std::string>& assignments) {
  param_set out;
  for (const auto& spec : specs) out.values_[spec.name] = spec.default_value;
  std::vector<std::string> given;
  for (const auto& a : assignments) {
    auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) throw usage_error(fmt::format("parameter '{}' must be written key=value", a));
    std::string key = a.substr(0, eq), value = a.substr(eq + 1);
    const param_spec* spec = nullptr;
    for (const auto& s : specs)
      if (key == s.name) spec = &s;
    if (!spec) throw usage_error(fmt::format("unknown parameter '{}' for problem {}; {}", valid_utf8(key), problem, valid_names(specs)));
    if (std::find(given.begin(), given.end(), key) != given.end())
      throw usage_error(fmt::format("parameter '{}' of {} is given twice", key, problem));
    given.push_back(key);
    out.values_[key] = check_value(problem, *spec, value);
  }
  return out;
}

std::int64_t integer_in(const param_set& p, std::string_view problem, std::string_view key, std::int64_t lo, std::int64_t hi) {
  const auto v = p.integer(key);
  if (v < lo || v > hi) throw usage_error(fmt::format("parameter '{}' of {} must be between {} and {}, got {}", key, problem, lo, hi, v));
  return v;
}

double real_in(const param_set& p, std::string_view problem, std::string_view key, double lo, double hi) {
  const auto v = p.real(key);
  if (!(v >= lo && v <= hi)) throw usage_error(fmt::format("parameter '{}' of {} must be between {} and {}, got {}", key, problem, lo, hi, v));
  return v;
}

std::optional<param_set> param_set::restore_json(std::string_view problem, std::span<const param_spec> specs, std::string_view stored_json) {
  const auto j = nlohmann::json::parse(stored_json, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  param_map pm;
  for (const auto& [k, v] : j.items())
    if (v.is_string()) pm[k] = v.get<std::string>();
  try {
    return restore(problem, specs, pm);
  } catch (const usage_error&) {
    return std::nullopt;
  }
}

param_set param_set::restore(std::string_view problem, std::span<const param_spec> specs, const param_map& stored) {
  param_set out;
  for (const auto& spec : specs) out.values_[spec.name] = spec.default_value;
  for (const auto& [key, value] : stored) {
    const param_spec* spec = nullptr;
    for (const auto& s : specs)
      if (key == s.name) spec = &s;
    if (!spec && key.starts_with(launch_prefix)) {  // a variant's launch override, an integer
      std::int64_t v = 0;
      if (!parse_integer(value, v))
        throw usage_error(fmt::format("parameter '{}' of {} must be an integer, got '{}'", valid_utf8(key), problem, valid_utf8(value)));
      out.values_[key] = value;
      continue;
    }
    if (!spec) throw usage_error(fmt::format("unknown parameter '{}' for problem {}", valid_utf8(key), problem));
    out.values_[key] = check_value(problem, *spec, value, false);
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
