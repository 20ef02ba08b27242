#include "measure/energy.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <thread>

#include "measure/nvml.hpp"
#include "measure/rapl.hpp"

namespace ema {
namespace {

using clock_type = std::chrono::steady_clock;

energy_source gpu_source(const std::vector<std::string>& pci_ids, const std::string& gpu_reason) {
  energy_source s;
  s.metric = "energy_gpu";
  s.update_period = 0.1;
  if (pci_ids.empty()) {
    s.unavailable = gpu_reason;
    return s;
  }
  if (!nvml::available()) {
    s.unavailable = nvml::unavailable_reason();
    return s;
  }
  std::vector<nvml::device> devices;
  for (const auto& id : pci_ids) {
    auto d = nvml::device_by_pci(id);
    if (!d) {
      s.unavailable = fmt::format("NVML does not know the device at PCI {}", id);
      return s;
    }
    std::string why;
    if (!nvml::total_energy_joules(*d, &why)) {
      s.unavailable = why;
      return s;
    }
    devices.push_back(*d);
  }
  s.read = [devices] {
    double sum = 0;
    for (auto d : devices) sum += nvml::total_energy_joules(d).value_or(std::numeric_limits<double>::quiet_NaN());
    return sum;
  };
  return s;
}

energy_source rapl_source(const std::string& metric, const std::string& domain, const std::string& root) {
  energy_source s;
  s.metric = metric;
  s.update_period = 0.002;
  auto d = std::make_shared<rapl_domain>(rapl_domain::open(domain, root));
  if (!d->available()) {
    s.unavailable = d->unavailable_reason();
    return s;
  }
  s.read = [d] { return d->joules(); };
  return s;
}

}  // namespace

std::vector<energy_source> open_energy_sources(const std::vector<std::string>& gpu_pci_ids, const std::string& gpu_reason,
                                               const std::string& rapl_root) {
  std::string root = rapl_root;
  if (root.empty()) {
    const char* env = std::getenv("EMA_POWERCAP_ROOT");
    root = env && *env ? env : "/sys/class/powercap";
  }
  std::vector<energy_source> out;
  out.push_back(gpu_source(gpu_pci_ids, gpu_reason));
  out.push_back(rapl_source("energy_cpu", "package", root));
  out.push_back(rapl_source("energy_dram", "dram", root));
  return out;
}

std::vector<double> read_all(const std::vector<energy_source>& sources) {
  std::vector<double> v;
  for (const auto& s : sources) v.push_back(s.read ? s.read() : std::numeric_limits<double>::quiet_NaN());
  return v;
}

bool counters_moved(const std::vector<energy_source>& sources, const std::vector<double>& since) {
  auto now = read_all(sources);
  for (std::size_t i = 0; i < sources.size(); ++i)
    if (sources[i].read && now[i] == since[i]) return false;
  return true;
}

void wait_for_counter_update(const std::vector<energy_source>& sources, double limit) {
  const energy_source* slowest = nullptr;
  for (const auto& s : sources)
    if (s.read && (!slowest || s.update_period > slowest->update_period)) slowest = &s;
  if (!slowest) return;
  auto start = clock_type::now();
  double first = slowest->read();
  while (slowest->read() == first && std::chrono::duration<double>(clock_type::now() - start).count() < limit)
    std::this_thread::sleep_for(std::chrono::microseconds(500));
}

std::vector<double> idle_power(const std::vector<energy_source>& sources, double seconds) {
  std::vector<double> watts(sources.size(), std::numeric_limits<double>::quiet_NaN());
  bool any = false;
  for (const auto& s : sources) any |= static_cast<bool>(s.read);
  if (!any) return watts;
  wait_for_counter_update(sources);
  auto e0 = read_all(sources);
  auto t0 = clock_type::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  wait_for_counter_update(sources);
  auto e1 = read_all(sources);
  double dt = std::chrono::duration<double>(clock_type::now() - t0).count();
  for (std::size_t i = 0; i < sources.size(); ++i)
    if (sources[i].read) watts[i] = (e1[i] - e0[i]) / dt;
  return watts;
}

}  // namespace ema
