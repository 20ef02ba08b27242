#include "core/format.hpp"

#include <cmath>
#include <fmt/format.h>

namespace ema {
namespace {

std::string scaled(double v, const char* const* units, int count, double step) {
  if (!std::isfinite(v)) return "-";
  int i = 0;
  double a = std::abs(v);
  while (i + 1 < count && a >= step) {
    a /= step;
    v /= step;
    ++i;
  }
  return fmt::format("{:.3g} {}", v, units[i]);
}

std::string scaled_down(double v, const char* const* units, int count) {
  // units from the largest (index 0 = base unit) to smaller ones, each 1000x smaller
  if (!std::isfinite(v)) return "-";
  if (v == 0) return fmt::format("0 {}", units[0]);
  int i = 0;
  while (i + 1 < count && std::abs(v) < 1.0) {
    v *= 1000;
    ++i;
  }
  return fmt::format("{:.3g} {}", v, units[i]);
}

}  // namespace

std::string format_time(double s) {
  static const char* const units[] = {"s", "ms", "µs", "ns"};
  return scaled_down(s, units, 4);
}

std::string format_energy(double j) {
  static const char* const units[] = {"J", "mJ", "µJ", "nJ"};
  return scaled_down(j, units, 4);
}

std::string format_bytes(double b) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  return scaled(b, units, 5, 1024);
}

std::string format_rate(double r) {
  if (!std::isfinite(r)) return "-";
  return fmt::format("{:.1f} GB/s", r / 1e9);
}

std::string format_ratio(double r) {
  if (!std::isfinite(r)) return "-";
  return fmt::format("{:.2f}x", r);
}

std::string format_percent(double f) {
  if (!std::isfinite(f)) return "-";
  return fmt::format("{:.1f}%", 100 * f);
}

std::string format_value(double v, const std::string& unit) {
  if (unit == "s") return format_time(v);
  if (unit == "B") return format_bytes(v);
  if (unit == "J") return format_energy(v);
  if (unit == "B/s") return format_rate(v);
  if (unit == "FLOP/s" && std::isfinite(v)) return v >= 1e12 ? fmt::format("{:.1f} TFLOP/s", v / 1e12) : fmt::format("{:.1f} GFLOP/s", v / 1e9);
  return fmt::format("{:.4g} {}", v, unit);
}

std::string format_size(double n) {
  const double l = std::log2(n);
  if (n >= 1024 && std::abs(l - std::round(l)) < 1e-9) return fmt::format("2^{}", static_cast<int>(std::round(l)));
  if (n < 1e5 && std::abs(n - std::round(n)) < 1e-9) return fmt::format("{}", static_cast<long long>(std::round(n)));
  if (!std::isfinite(n) || n < 1e5) return fmt::format("{:.3g}", n);
  // One notation for sizes that are not powers of two (issue 31, item 2): three digits and a
  // decimal suffix, as the charts' axes write them, never 1143481 beside 2.52e+08.
  static const char* suffix[] = {"k", "M", "G", "T", "P", "E"};
  int i = -1;
  while (n >= 999.5 && i < 5) n /= 1000, ++i;
  return fmt::format("{}{}", fmt::format("{:.3g}", n), suffix[i]);
}

}  // namespace ema
