// Durations on the command line (`--budget 2m`): a number with an optional unit, s (the default),
// m or h, or several of them together ("1h30m", "90s", "2.5m").
#pragma once

#include <string>
#include <string_view>

namespace ema {

/// Seconds; throws usage_error naming what is wrong for malformed, zero or negative text.
double parse_duration(std::string_view text);

/// "2m", "1h30m", "45s", "0.5s".
std::string format_duration(double seconds);

}  // namespace ema
