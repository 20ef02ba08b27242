#include "cli/outputs.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <fmt/format.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/registry.hpp"

namespace ema::cli {
namespace fs = std::filesystem;
namespace {

void check_writable(const output_path& o) {
  std::error_code ec;
  const auto st = fs::status(o.path, ec);
  if (fs::is_directory(st)) throw usage_error(fmt::format("{} {} is a folder, not a file", o.option, o.path));
  if (fs::exists(st)) {
    if (access(o.path.c_str(), W_OK) != 0) throw usage_error(fmt::format("{} {} cannot be written: {}", o.option, o.path, std::strerror(errno)));
    return;
  }
  auto dir = fs::path(o.path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) throw usage_error(fmt::format("{} {}: the folder {} does not exist", o.option, o.path, dir.string()));
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw usage_error(fmt::format("{} {} cannot be created: {} ({})", o.option, o.path, std::strerror(errno), dir.string()));
}

}  // namespace

std::vector<output_path> given_outputs(std::initializer_list<std::pair<const char*, const std::optional<std::string>*>> options) {
  std::vector<output_path> out;
  for (const auto& [option, path] : options)
    if (*path) out.push_back({option, **path});
  return out;
}

void check_outputs(const std::string& db, const std::vector<output_path>& outputs) { check_outputs(std::vector<std::string>{db}, outputs); }

void check_outputs(const std::vector<std::string>& databases, const std::vector<output_path>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& o = outputs[i];
    if (o.path.empty()) throw usage_error(fmt::format("{} is empty: give a file, or - for standard output", o.option));
    if (o.path == "-") continue;
    for (const auto& db : databases)
      if (names_the_database(db, o.path))
        throw usage_error(
            fmt::format("{} {} is the database {} (or one of its files); writing there would destroy it: give another file", o.option, o.path, db));
    for (std::size_t k = 0; k < i; ++k)
      if (outputs[k].path != "-" && same_file(o.path, outputs[k].path))
        throw usage_error(fmt::format("{} and {} name the same file {}", outputs[k].option, o.option, o.path));
    check_writable(o);
  }
}

std::vector<output_path> parameter_outputs(const plan& p) {
  std::vector<output_path> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& problem, const param_set& params, std::optional<std::uint64_t> n) {
    const auto* desc = lookup_problem(problem);  // none for `ema exec`'s programs
    if (!desc) return;
    for (const auto& spec : desc->params) {
      if (spec.kind != param_kind::output) continue;
      const auto& value = params.text(spec.name);
      if (value.empty() || (!n && value.find("{n}") != std::string::npos)) continue;
      const auto path = n ? output_file_at(value, *n) : value;
      if (seen.insert(path).second) out.push_back({fmt::format("--param {}=", spec.name), path});
    }
  };
  for (const auto& pt : p.points) add(pt.problem, pt.params, pt.n);
  if (p.calibrated)
    for (const auto& t : p.calibrated->tracks) add(t.problem, t.params, std::nullopt);
  return out;
}

}  // namespace ema::cli
