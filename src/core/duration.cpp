#include "core/duration.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "core/errors.hpp"

namespace ema {

double parse_duration(std::string_view text) {
  const std::string original(text);
  if (text.empty()) throw usage_error("empty duration (write e.g. 90s, 2m or 1h30m)");
  double total = 0;
  while (!text.empty()) {
    double v = 0;
    if (text.front() == '-' || text.front() == '+') throw usage_error(fmt::format("duration '{}' must be positive, without a sign", original));
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end == text.data())
      throw usage_error(fmt::format("duration '{}' is not a number with a unit s, m or h (write e.g. 90s, 2m or 1h30m)", original));
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    double unit = 1;
    if (!text.empty() && std::isalpha(static_cast<unsigned char>(text.front()))) {
      switch (text.front()) {
        case 's':
          unit = 1;
          break;
        case 'm':
          unit = 60;
          break;
        case 'h':
          unit = 3600;
          break;
        default:
          throw usage_error(fmt::format("duration '{}' has an unknown unit '{}' (use s, m or h)", original, text.front()));
      }
      text.remove_prefix(1);
    } else if (!text.empty()) {
      throw usage_error(fmt::format("duration '{}' is malformed (write e.g. 90s, 2m or 1h30m)", original));
    }
    total += v * unit;
  }
  if (!(total > 0) || !std::isfinite(total)) throw usage_error(fmt::format("duration '{}' must be positive", original));
  return total;
}

std::string format_duration(double s) {
  if (s >= 3600) {
    const auto h = static_cast<long>(s / 3600);
    const auto m = static_cast<long>(std::round((s - 3600.0 * static_cast<double>(h)) / 60));
    return m ? fmt::format("{}h{}m", h, m) : fmt::format("{}h", h);
  }
  if (s >= 60) {
    const auto m = static_cast<long>(s / 60);
    const auto r = static_cast<long>(std::round(s - 60.0 * static_cast<double>(m)));
    return r ? fmt::format("{}m{}s", m, r) : fmt::format("{}m", m);
  }
  return fmt::format("{:g}s", s);
}

}  // namespace ema
