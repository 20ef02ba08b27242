// Energy meters: GPU board energy from NVML's total-energy counter, CPU package and DRAM energy
// from RAPL. Both counters advance in steps (NVML about every 100 ms), so energy is measured over
// a window of at least a second of back-to-back repetitions whose edges are aligned to counter
// updates, and divided by the repetitions in it. A source that cannot be read is carried with the
// reason, and reported as "unavailable (reason)", never as 0.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ema {

struct energy_source {
  std::string metric;            ///< energy_gpu, energy_cpu or energy_dram
  std::string unavailable;       ///< empty when the source can be read
  std::function<double()> read;  ///< cumulative joules, monotonic
  double update_period = 0;      ///< seconds between counter updates (a bound, for alignment)
};

/// Opens every source: the GPU meter sums the boards given by PCI bus id (none: unavailable with
/// `gpu_reason`), the CPU meters read powercap under `rapl_root` (empty: the environment's
/// EMA_POWERCAP_ROOT where set, for a powercap tree mounted elsewhere, else /sys/class/powercap).
std::vector<energy_source> open_energy_sources(const std::vector<std::string>& gpu_pci_ids, const std::string& gpu_reason,
                                               const std::string& rapl_root = "");

/// Blocks until the slowest available counter changes (at most `limit` seconds), so a window that
/// starts now starts at a counter update.
void wait_for_counter_update(const std::vector<energy_source>& sources, double limit = 0.3);

/// True when every available counter has changed since `since` (values from read_all()).
bool counters_moved(const std::vector<energy_source>& sources, const std::vector<double>& since);

std::vector<double> read_all(const std::vector<energy_source>& sources);

/// Mean power of each source while idle over `seconds` (a counter-aligned window), in watts;
/// NaN for unavailable sources.
std::vector<double> idle_power(const std::vector<energy_source>& sources, double seconds);

}  // namespace ema
