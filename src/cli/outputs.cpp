#include "cli/outputs.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

#include "core/errors.hpp"

namespace ema::cli {
namespace fs = std::filesystem;
namespace {

// One name for a file whatever path reaches it: the canonical form of its folder and its name.
fs::path identity(const std::string& path) {
  std::error_code ec;
  auto p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec)) return true;  // hard links too
  return identity(a) == identity(b);
}

void check_writable(const output_path& o) {
  std::error_code ec;
  const auto st = fs::status(o.path, ec);
  if (fs::is_directory(st)) throw usage_error(fmt::format("{} {} is a folder, not a file", o.option, o.path));
  if (fs::exists(st)) {
    if (access(o.path.c_str(), W_OK) != 0)
      throw usage_error(fmt::format("{} {} cannot be written: {}", o.option, o.path, std::strerror(errno)));
    return;
  }
  auto dir = fs::path(o.path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw usage_error(fmt::format("{} {}: the folder {} does not exist", o.option, o.path, dir.string()));
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

bool names_the_database(const std::string& db, const std::string& path) {
  for (const char* sidecar : {"", "-journal", "-wal", "-shm"})
    if (same_file(path, db + sidecar)) return true;
  return false;
}

void check_outputs(const std::string& db, const std::vector<output_path>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& o = outputs[i];
    if (o.path.empty()) throw usage_error(fmt::format("{} is empty: give a file, or - for standard output", o.option));
    if (o.path == "-") continue;
    if (names_the_database(db, o.path))
      throw usage_error(fmt::format("{} {} is the database (or one of its files); writing there would destroy it: give another "
                                    "file", o.option, o.path));
    for (std::size_t k = 0; k < i; ++k)
      if (outputs[k].path != "-" && same_file(o.path, outputs[k].path))
        throw usage_error(fmt::format("{} and {} name the same file {}", outputs[k].option, o.option, o.path));
    check_writable(o);
  }
}

}  // namespace ema::cli
