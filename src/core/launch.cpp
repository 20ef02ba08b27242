#include "core/launch.hpp"

#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string>

#include "core/errors.hpp"
#include "core/params.hpp"
#include "core/run_context.hpp"

namespace ema {

std::int64_t check_launch_value(const launch_field& f, std::string_view variant, std::string_view value) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc{} || end != value.data() + value.size() || v < f.min || v > f.max || v % f.multiple != 0)
    throw usage_error(fmt::format("launch.{} of {} must be an integer in [{}, {}]{}, got '{}' ({})", f.name, variant, f.min, f.max,
                                  f.multiple > 1 ? fmt::format(", a multiple of {}", f.multiple) : std::string(), value, f.help));
  return v;
}

void check_bind_value(std::string_view variant, std::string_view value) {
  for (const auto v : openmp_bind_values)
    if (v == value) return;
  throw usage_error(
      fmt::format("launch.{} of {} must be one of {}, got '{}' (where OpenMP places its threads: close packs them on "
                  "neighbouring cores, spread spreads them over the machine)",
                  openmp_bind_name, variant, fmt::join(openmp_bind_values, ", "), value));
}

std::vector<std::string> bind_environment(std::string_view value, bool user_places) {
  std::vector<std::string> env{fmt::format("OMP_PROC_BIND={}", value)};
  if (value != "false" && !user_places) env.emplace_back("OMP_PLACES=cores");
  return env;
}

void apply_overrides(std::span<const launch_field> fields, std::span<int* const> members, const param_set& params) {
  for (std::size_t i = 0; i < fields.size() && i < members.size(); ++i) {
    const std::string key = std::string(launch_prefix) + fields[i].name;
    if (auto it = params.values().find(key); it != params.values().end())
      *members[i] = static_cast<int>(check_launch_value(fields[i], "this variant", it->second));
  }
}

void run_context::apply_launch(std::span<const launch_field> fields, std::span<int* const> members) {
  apply_overrides(fields, members, params_);
  for (std::size_t i = 0; i < fields.size() && i < members.size(); ++i) note(std::string(launch_prefix) + fields[i].name, *members[i]);
}

}  // namespace ema
