#include "report/values.hpp"

#include <cstdint>
#include <fmt/format.h>

#include "core/format.hpp"

namespace ema {

std::string format_value_by_hint(const tagged_value& v) {
  if (v.unavailable) return "unavailable";
  switch (v.hint) {
    case hint::label:
    case hint::status:
      return v.text;
    case hint::note:
      return v.text.empty() ? "-" : v.text;
    case hint::size:
      return std::isfinite(v.x) ? fmt::format("{}", static_cast<std::uint64_t>(v.x)) : "-";
    case hint::duration:
      return std::isfinite(v.x) ? format_time(v.x) + (v.noisy ? " !" : "") : "-";
    case hint::rate:
    case hint::number:
      return std::isfinite(v.x) ? fmt::format("{:.3g}", v.x) : "-";
    case hint::percent:
      return format_percent(v.x);
    case hint::speedup:
      return format_ratio(v.x);
    case hint::energy:
      return std::isfinite(v.x) ? format_energy(v.x) : "-";
    case hint::bytes:
      return std::isfinite(v.x) ? format_bytes(v.x) : "-";
  }
  return "-";
}

const char* hint_name(ema::hint h) {
  switch (h) {
    case hint::size:
      return "size";
    case hint::label:
      return "label";
    case hint::duration:
      return "duration";
    case hint::rate:
      return "rate";
    case hint::percent:
      return "percent";
    case hint::speedup:
      return "speedup";
    case hint::energy:
      return "energy";
    case hint::number:
      return "number";
    case hint::bytes:
      return "bytes";
    case hint::note:
      return "note";
    case hint::status:
      return "status";
  }
  return "?";
}

nlohmann::json value_json(const tagged_value& v) {
  if (v.unavailable) return nullptr;
  if (v.hint == hint::label || v.hint == hint::note || v.hint == hint::status) return v.text.empty() ? nlohmann::json() : nlohmann::json(v.text);
  return std::isfinite(v.x) ? nlohmann::json(v.x) : nlohmann::json();
}

bool right_aligned(ema::hint h) { return h != hint::label && h != hint::status; }

bool shows_nothing(const tagged_value& v) {
  const auto text = format_value_by_hint(v);
  return text == "-" || text == "unavailable";
}

}  // namespace ema
