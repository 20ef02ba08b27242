#include "measure/rapl.hpp"

#include "measure/kernel_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace ema {
namespace {

std::optional<std::uint64_t> read_u64(const std::filesystem::path& p) {
  auto s = read_first_line(p, 64);  // a powercap file: a number
  if (!s) return std::nullopt;
  try {
    return std::stoull(*s);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

rapl_domain rapl_domain::open(const std::string& domain, const std::string& root) {
  namespace fs = std::filesystem;
  rapl_domain d;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    d.reason_ = fmt::format("no powercap interface ({} does not exist)", root);
    return d;
  }
  std::string unreadable;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    auto dir = entry.path();
    auto fname = dir.filename().string();
    if (fname.rfind("intel-rapl:", 0) != 0 && fname.rfind("amd-rapl:", 0) != 0) continue;
    auto name = read_first_line(dir / "name", 64);
    if (!name) continue;
    bool match = domain == "package" ? name->rfind("package", 0) == 0 : *name == domain;
    if (!match) continue;
    zone z;
    z.energy_path = (dir / "energy_uj").string();
    errno = 0;
    auto now = read_u64(z.energy_path);
    if (!now) {
      const bool opened = std::ifstream(z.energy_path).good();
      unreadable = opened ? fmt::format("{} holds no energy counter (no number on its first line)", z.energy_path)
                          : fmt::format("cannot read {} ({}; reading RAPL usually needs root)", z.energy_path, std::strerror(errno ? errno : EACCES));
      continue;
    }
    z.last_uj = *now;
    z.range_uj = read_u64(dir / "max_energy_range_uj").value_or(0);
    d.zones_.push_back(z);
  }
  if (d.zones_.empty()) d.reason_ = !unreadable.empty() ? unreadable : fmt::format("no RAPL '{}' zone under {}", domain, root);
  return d;
}

double rapl_domain::joules() {
  double sum = 0;
  for (auto& z : zones_) {
    if (auto now = read_u64(z.energy_path)) {
      std::uint64_t delta = *now >= z.last_uj ? *now - z.last_uj : (z.range_uj ? z.range_uj - z.last_uj + *now : 0);
      z.total_j += static_cast<double>(delta) * 1e-6;
      z.last_uj = *now;
    }
    sum += z.total_j;
  }
  return sum;
}

}  // namespace ema
