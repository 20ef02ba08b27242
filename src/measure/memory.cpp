#include "measure/memory.hpp"

#include <fstream>
#include <string>

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

}  // namespace

std::uint64_t total_memory_bytes() { return meminfo("MemTotal"); }
std::uint64_t available_memory_bytes() { return meminfo("MemAvailable"); }

}  // namespace ema
