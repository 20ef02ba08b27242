#include "measure/memory.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <sys/resource.h>

namespace ema {
namespace {

std::uint64_t meminfo(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string name, unit;
  std::uint64_t kib = 0;
  while (in >> name >> kib) {
    std::getline(in, unit);
    if (name == key + ":") return kib * 1024;
  }
  return 0;
}

// A line "Key:   N kB" of /proc/self/status, in bytes.
std::uint64_t status_bytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) return std::strtoull(line.c_str() + key.size() + 1, nullptr, 10) * 1024;
  return 0;
}

std::uint64_t left_under(int resource, const std::string& used_key) {
  rlimit r{};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::numeric_limits<std::uint64_t>::max();
  const auto used = status_bytes(used_key);
  return r.rlim_cur > used ? r.rlim_cur - used : 0;
}

// cgroup v2: the process's group ("0::/path" in /proc/self/cgroup), its memory.max less memory.current.
std::uint64_t left_in_cgroup() {
  constexpr auto none = std::numeric_limits<std::uint64_t>::max();
  std::ifstream groups("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(groups, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  if (path.empty()) return none;
  const std::string dir = "/sys/fs/cgroup" + path;
  std::ifstream max_file(dir + "/memory.max"), current_file(dir + "/memory.current");
  std::string max_text;
  std::uint64_t current = 0;
  if (!(max_file >> max_text) || max_text == "max" || !(current_file >> current)) return none;
  const auto max = std::strtoull(max_text.c_str(), nullptr, 10);
  return max > current ? max - current : 0;
}

}  // namespace

std::uint64_t memory_this_process_may_add() {
  std::uint64_t left = std::numeric_limits<std::uint64_t>::max();
  if (const auto available = available_memory_bytes(); available > 0) left = available;
  left = std::min({left, left_under(RLIMIT_AS, "VmSize"), left_under(RLIMIT_DATA, "VmData"), left_in_cgroup()});
  return left;
}

std::uint64_t total_memory_bytes() { return meminfo("MemTotal"); }
std::uint64_t available_memory_bytes() { return meminfo("MemAvailable"); }

}  // namespace ema
