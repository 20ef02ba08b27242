#include "measure/machine.hpp"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <utility>
#include <vector>
#include <thread>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <sys/utsname.h>

#include "measure/gpu.hpp"
#include "measure/memory.hpp"
#include "measure/nvml.hpp"

namespace ema {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0)
      if (auto c = line.find(':'); c != std::string::npos) return line.substr(c + 2);
  return "unknown";
}

/// "48K", "2048K", "1M", "32" (bytes) as bytes; 0 when unreadable.
std::uint64_t size_of(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::uint64_t unit = 1;
  if (!s.empty() && (s.back() == 'K' || s.back() == 'M' || s.back() == 'G')) {
    unit = s.back() == 'K' ? 1024ull : s.back() == 'M' ? 1024ull * 1024 : 1024ull * 1024 * 1024;
    s.pop_back();
  }
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && end == s.data() + s.size() ? v * unit : 0;
}

std::string first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string cuda_version_text(int v) { return v ? fmt::format("{}.{}", v / 1000, (v % 1000) / 10) : "unknown"; }

}  // namespace

nlohmann::json read_caches(const std::string& dir) {
  nlohmann::json out = nlohmann::json::array();
  std::error_code ec;
  std::vector<std::filesystem::path> entries;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("index", 0) == 0) entries.push_back(e.path());
  for (const auto& e : entries) {
    const auto level = size_of(first_line(e / "level"));
    const auto bytes = size_of(first_line(e / "size"));
    if (!level || !bytes) continue;
    out.push_back(
        {{"level", level}, {"type", first_line(e / "type")}, {"size_bytes", bytes}, {"shared_cpu_list", first_line(e / "shared_cpu_list")}});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::pair{a["level"].template get<std::uint64_t>(), a["type"].template get<std::string>()} <
           std::pair{b["level"].template get<std::uint64_t>(), b["type"].template get<std::string>()};
  });
  return out;
}

int allowed_cpus() {
#ifdef _OPENMP
  // The mask as the process started: with OMP_PROC_BIND set, the OpenMP runtime binds this (the
  // initial) thread to its first place as it starts, after which sched_getaffinity reads one CPU;
  // omp_get_num_procs keeps the count it read before.
  return omp_get_num_procs();
#else
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
#endif
}

int openmp_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

nlohmann::json describe_machine() {
  nlohmann::json m;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  utsname u{};
  uname(&u);
  m["host"] = {{"hostname", host},
               {"cpu_model", cpu_model()},
               {"logical_cores", std::thread::hardware_concurrency()},
               {"allowed_cpus", allowed_cpus()},
               {"openmp_threads", openmp_threads()},
               {"memory_bytes", total_memory_bytes()},
               {"caches", read_caches("/sys/devices/system/cpu/cpu0/cache")},
               {"kernel", fmt::format("{} {}", u.sysname, u.release)}};
  const auto& g = gpu::query();
  m["cuda"] = {
      {"built_with_cuda", g.built_with_cuda}, {"runtime", cuda_version_text(g.runtime_version)}, {"driver_api", cuda_version_text(g.driver_version)}};
  if (auto dv = nvml::driver_version()) m["cuda"]["driver"] = *dv;
  m["gpus"] = nlohmann::json::array();
  for (const auto& d : g.devices) {
    nlohmann::json j = {{"index", d.index},
                        {"name", d.name},
                        {"pci_bus_id", d.pci_bus_id},
                        {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
                        {"sm_count", d.sm_count},
                        {"max_threads_per_sm", d.max_threads_per_sm},
                        {"resident_threads", d.sm_count * d.max_threads_per_sm},
                        {"memory_bytes", d.memory_bytes},
                        {"l2_bytes", d.l2_bytes},
                        {"shared_memory_per_sm_bytes", d.shared_memory_per_sm_bytes}};
    if (auto h = nvml::device_by_pci(d.pci_bus_id)) {
      if (auto c = nvml::max_clock_mhz(*h, 1)) j["sm_clock_max_mhz"] = *c;
      if (auto c = nvml::max_clock_mhz(*h, 2)) j["mem_clock_max_mhz"] = *c;
      if (auto c = nvml::clock_mhz(*h, 1)) j["sm_clock_mhz"] = *c;
      if (auto c = nvml::clock_mhz(*h, 2)) j["mem_clock_mhz"] = *c;
    }
    m["gpus"].push_back(j);
  }
  if (g.devices.empty()) m["gpus_unavailable"] = g.unavailable;
  return m;
}

std::string machine_key(const nlohmann::json& m) {
  std::string key = fmt::format("{}|{}", m["host"].value("hostname", "?"), m["host"].value("cpu_model", "?"));
  for (const auto& g : m["gpus"]) {
    key += '|';
    key += g.value("name", "?");
  }
  return key;
}

std::string machine_kind(const nlohmann::json& m) {
  const auto host = m.value("host", nlohmann::json::object());
  // The CPUs the process was given (an allocation's CPU set), where recorded, not the whole node's.
  const int cpus = host.value("allowed_cpus", 0) > 0 ? host.value("allowed_cpus", 0) : host.value("logical_cores", 0);
  std::string kind = fmt::format("{} ({} cores, {} OpenMP threads)", host.value("cpu_model", "?"), cpus, host.value("openmp_threads", 0));
  for (const auto& g : m.value("gpus", nlohmann::json::array())) kind += ", " + g.value("name", "?");
  return kind;
}

}  // namespace ema
