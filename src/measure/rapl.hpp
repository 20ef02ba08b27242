// CPU package and DRAM energy from Linux powercap (RAPL), where its counters are readable.
// The sysfs root is a parameter so tests can point it at a fabricated tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ema {

/// A set of powercap zones of one domain ("package" or "dram"), summed over sockets, with the
/// counters' wrap-around (max_energy_range_uj) handled.
class rapl_domain {
 public:
  /// Finds the zones of `domain` under `root` (default /sys/class/powercap).
  static rapl_domain open(const std::string& domain, const std::string& root = "/sys/class/powercap");

  bool available() const { return reason_.empty(); }
  const std::string& unavailable_reason() const { return reason_; }
  /// Cumulative energy in joules since open(), monotonic across counter wrap-around.
  /// Must be called at least once per wrap period (tens of seconds at full power).
  double joules();

 private:
  struct zone {
    std::string energy_path;
    std::uint64_t range_uj = 0;
    std::uint64_t last_uj = 0;
    double total_j = 0;
  };
  std::vector<zone> zones_;
  std::string reason_;
};

}  // namespace ema
