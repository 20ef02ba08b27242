#include "inputs/input_cache.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fmt/format.h>
#include <fstream>
#include <vector>

#include "core/errors.hpp"

namespace ema {
namespace fs = std::filesystem;
namespace {

constexpr const char* tag_name = "CACHEDIR.TAG";
constexpr const char* tag_signature = "Signature: 8a477f597d28d172789f06886806bc55";
constexpr const char* tag_text =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file marks the input cache of ema (https://bford.info/cachedir/): the inputs that the\n"
    "# generators of `ema exec` wrote, one folder per problem. ema deletes the least recently used\n"
    "# of them to keep the folder under its cap; it writes and deletes nothing else here.\n";

bool digits(const std::string& s, std::size_t& at) {
  const auto from = at;
  while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) ++at;
  return at > from;
}

bool problem_folder_name(const std::string& s) {
  if (s.empty() || s[0] == '.') return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.'; });
}

bool is_ema_tag(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(p, ec))) return false;
  std::ifstream f(p);
  std::string first, second;
  std::getline(f, first);
  std::getline(f, second);
  return first == tag_signature && second.find("input cache of ema") != std::string::npos;
}

// Why `root` cannot become ema's cache (it holds something ema did not write), or empty.
std::string foreign_content(const fs::path& root) {
  std::error_code ec;
  for (fs::directory_iterator top(root, ec), end; !ec && top != end; top.increment(ec)) {
    const auto& e = *top;
    const auto name = e.path().filename().string();
    if (!fs::is_directory(e.symlink_status(ec)) || !problem_folder_name(name)) return e.path().string();
    for (fs::directory_iterator in(e.path(), ec); !ec && in != end; in.increment(ec)) {
      const auto file = in->path().filename().string();
      if (!fs::is_regular_file(in->symlink_status(ec)) || !(input_cache::input_name(file) || input_cache::input_name(file, true)))
        return in->path().string();
    }
  }
  if (ec) return fmt::format("{} ({})", root.string(), ec.message());
  return "";
}

}  // namespace

bool input_cache::input_name(const std::string& name, bool partial) {
  std::string s = name;
  const std::string suffix = partial ? ".in.partial" : ".in";
  if (s.size() <= suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  s.erase(s.size() - suffix.size());
  std::size_t at = 0;
  if (s[at++] != 'n' || !digits(s, at)) return false;
  if (s.compare(at, 2, "-s") != 0) return false;
  at += 2;
  if (!digits(s, at) || at >= s.size() || s[at++] != '-') return false;
  if (s.size() - at != 16) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(at), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

input_cache input_cache::open(const std::string& dir) {
  if (dir.empty()) throw usage_error("--cache is empty: give the folder where ema keeps generated inputs");
  std::error_code ec;
  const fs::path root = fs::absolute(dir, ec).lexically_normal();
  if (ec) throw usage_error(fmt::format("--cache {}: {}", dir, ec.message()));
  const auto st = fs::status(root, ec);
  if (fs::exists(st) && !fs::is_directory(st)) throw usage_error(fmt::format("--cache {} is not a folder", root.string()));
  if (!fs::exists(st)) {
    fs::create_directories(root, ec);
    if (ec) throw usage_error(fmt::format("cannot create the input cache {}: {}", root.string(), ec.message()));
  }
  const auto tag = root / tag_name;
  if (is_ema_tag(tag)) return input_cache(root);
  if (fs::exists(fs::symlink_status(tag, ec)))
    throw usage_error(fmt::format("--cache {} is marked as another program's cache ({}); give ema a folder of its own", root.string(), tag.string()));
  if (auto other = foreign_content(root); !other.empty())
    throw usage_error(
        fmt::format("--cache {} holds files that ema did not write (e.g. {}); ema deletes old inputs in its "
                    "cache, so give it a new or empty folder of its own",
                    root.string(), other));
  std::ofstream f(tag);
  f << tag_text;
  if (!f.flush()) throw usage_error(fmt::format("cannot write {}: the input cache must be writable", tag.string()));
  return input_cache(root);
}

fs::path input_cache::input_path(const std::string& problem, std::uint64_t n, std::uint64_t seed, std::uint64_t key) const {
  if (!problem_folder_name(problem)) throw usage_error(fmt::format("'{}' cannot name a folder of the input cache", problem));
  const auto dir = root_ / problem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  return dir / fmt::format("n{}-s{}-{:016x}.in", n, seed % 1000000, key);
}

void input_cache::trim(double cap, const fs::path& keep) const {
  struct entry {
    fs::file_time_type when;
    fs::path path;
    double bytes;
  };
  std::vector<entry> inputs;
  double total = 0;
  const auto stale = fs::file_time_type::clock::now() - std::chrono::hours(24);
  std::error_code ec;
  for (fs::directory_iterator top(root_, ec), end; !ec && top != end; top.increment(ec)) {
    if (!fs::is_directory(top->symlink_status(ec)) || !problem_folder_name(top->path().filename().string())) continue;
    std::error_code inner;
    for (fs::directory_iterator in(top->path(), inner); !inner && in != end; in.increment(inner)) {
      std::error_code e;
      if (!fs::is_regular_file(in->symlink_status(e))) continue;
      const auto name = in->path().filename().string();
      const auto when = in->last_write_time(e);
      if (e) continue;
      if (input_name(name, true) && when < stale) {
        fs::remove(in->path(), e);  // a generation that ended with its ema a day ago
        continue;
      }
      if (!input_name(name)) continue;
      const auto bytes = static_cast<double>(in->file_size(e));
      if (e) continue;
      total += bytes;
      inputs.push_back({when, in->path(), bytes});
    }
  }
  std::sort(inputs.begin(), inputs.end(), [](const entry& a, const entry& b) { return a.when < b.when; });
  for (const auto& in : inputs) {
    if (total <= cap) break;
    if (fs::equivalent(in.path, keep, ec)) continue;
    if (fs::remove(in.path, ec)) total -= in.bytes;
  }
}

}  // namespace ema
