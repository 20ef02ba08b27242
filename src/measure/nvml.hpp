// NVIDIA's management library, loaded at run time with dlopen so that nvml.h is never needed to
// build and a machine without the driver still runs ema (every query then says why it cannot).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ema::nvml {

/// Whether NVML could be loaded and initialised; the reason when not.
bool available();
const std::string& unavailable_reason();

/// The driver version string, e.g. "580.159.04".
std::optional<std::string> driver_version();

/// A device handle found by PCI bus id (as cudaDeviceGetPCIBusId writes it).
struct device {
  void* handle = nullptr;
};
std::optional<device> device_by_pci(const std::string& bus_id);

/// Total board energy since the driver loaded, in joules (Volta and newer). Nullopt with `why`
/// set when the device does not support it.
std::optional<double> total_energy_joules(device d, std::string* why = nullptr);
/// Maximum and current clocks in MHz: kind 0 graphics, 1 SM, 2 memory.
std::optional<unsigned> max_clock_mhz(device d, int kind);
std::optional<unsigned> clock_mhz(device d, int kind);
/// Device memory free now, in bytes (read without creating a CUDA context).
std::optional<double> free_memory_bytes(device d);

}  // namespace ema::nvml
