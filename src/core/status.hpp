// The status of a measurement point, as stored in the database and printed in every report.
#pragma once

#include <optional>
#include <string_view>

namespace ema {

enum class point_status { ok, failed, crashed, timeout, oom, unverified, skipped };

constexpr std::string_view to_string(point_status s) {
  switch (s) {
    case point_status::ok:
      return "ok";
    case point_status::failed:
      return "failed";
    case point_status::crashed:
      return "crashed";
    case point_status::timeout:
      return "timeout";
    case point_status::oom:
      return "oom";
    case point_status::unverified:
      return "unverified";
    case point_status::skipped:
      return "skipped";
  }
  return "?";
}

std::optional<point_status> status_from_string(std::string_view s);

/// A status that means the variant itself went wrong (as opposed to ok or skipped).
constexpr bool is_failure(point_status s) { return s != point_status::ok && s != point_status::skipped; }

}  // namespace ema
