#include "measure/nvml.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

namespace ema::nvml {
namespace {

// The subset of the NVML C API that ema uses, declared here so that nvml.h is not needed.
using nvml_return = int;
using nvml_device = void*;
constexpr nvml_return nvml_success = 0;

struct library {
  void* so = nullptr;
  std::string why;
  nvml_return (*init)() = nullptr;
  const char* (*error_string)(nvml_return) = nullptr;
  nvml_return (*system_driver_version)(char*, unsigned) = nullptr;
  nvml_return (*by_pci)(const char*, nvml_device*) = nullptr;
  nvml_return (*total_energy)(nvml_device, unsigned long long*) = nullptr;
  nvml_return (*max_clock)(nvml_device, int, unsigned*) = nullptr;
  nvml_return (*clock)(nvml_device, int, unsigned*) = nullptr;
  struct memory_v1 {
    unsigned long long total, free, used;
  };
  nvml_return (*memory)(nvml_device, memory_v1*) = nullptr;

  template <class F>
  bool bind(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(so, name));
    if (!f) why = fmt::format("libnvidia-ml.so.1 lacks {}", name);
    return f != nullptr;
  }

  library() {
    so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!so) {
      why = "NVML not found (libnvidia-ml.so.1: no NVIDIA driver)";
      return;
    }
    if (!bind(init, "nvmlInit_v2") || !bind(error_string, "nvmlErrorString") || !bind(system_driver_version, "nvmlSystemGetDriverVersion") ||
        !bind(by_pci, "nvmlDeviceGetHandleByPciBusId_v2") || !bind(total_energy, "nvmlDeviceGetTotalEnergyConsumption") ||
        !bind(max_clock, "nvmlDeviceGetMaxClockInfo") || !bind(clock, "nvmlDeviceGetClockInfo") || !bind(memory, "nvmlDeviceGetMemoryInfo")) {
      so = nullptr;
      return;
    }
    if (auto rc = init(); rc != nvml_success) {
      why = fmt::format("NVML failed to initialise: {}", error_string(rc));
      so = nullptr;
    }
  }
};

library& lib() {
  static library l;
  return l;
}

}  // namespace

bool available() { return lib().so != nullptr; }
const std::string& unavailable_reason() { return lib().why; }

std::optional<std::string> driver_version() {
  if (!available()) return std::nullopt;
  char buf[96] = {};
  if (lib().system_driver_version(buf, sizeof buf) != nvml_success) return std::nullopt;
  return std::string(buf);
}

std::optional<device> device_by_pci(const std::string& bus_id) {
  if (!available()) return std::nullopt;
  nvml_device h = nullptr;
  if (lib().by_pci(bus_id.c_str(), &h) != nvml_success) return std::nullopt;
  return device{h};
}

std::optional<double> total_energy_joules(device d, std::string* why) {
  if (!available()) {
    if (why) *why = unavailable_reason();
    return std::nullopt;
  }
  unsigned long long mj = 0;
  if (auto rc = lib().total_energy(d.handle, &mj); rc != nvml_success) {
    if (why) *why = fmt::format("NVML total energy: {}", lib().error_string(rc));
    return std::nullopt;
  }
  return static_cast<double>(mj) * 1e-3;
}

std::optional<unsigned> max_clock_mhz(device d, int kind) {
  unsigned mhz = 0;
  if (!available() || lib().max_clock(d.handle, kind, &mhz) != nvml_success) return std::nullopt;
  return mhz;
}

std::optional<unsigned> clock_mhz(device d, int kind) {
  unsigned mhz = 0;
  if (!available() || lib().clock(d.handle, kind, &mhz) != nvml_success) return std::nullopt;
  return mhz;
}

std::optional<double> free_memory_bytes(device d) {
  library::memory_v1 m{};
  if (!available() || lib().memory(d.handle, &m) != nvml_success) return std::nullopt;
  return static_cast<double>(m.free);
}

}  // namespace ema::nvml
