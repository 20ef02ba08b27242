// Results as tagged values (issue 30, item 1; after nvbench's summaries, nvbench/summary.cuh): a
// row of a result table is a list of values, each with the column it belongs to and a hint saying
// how it is read (a duration, a rate, a percent of a ceiling, a speedup, an energy ...). The column
// families (report/columns.hpp) produce them; a printer formats each by its hint alone
// (format_value_by_hint) and knows nothing of where it came from.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ema {

/// How a value is read, which is all a printer needs to format and align it.
enum class hint {
  size,      ///< n: an integer
  label,     ///< a row's name (its variant), left-aligned
  duration,  ///< seconds
  rate,      ///< a rate already in its column's unit (Mkeys/s, GB/s): three significant digits
  percent,   ///< a fraction of a ceiling
  speedup,   ///< a ratio of times
  energy,    ///< joules
  number,    ///< a plain quantity (watts, J·s): three significant digits
  bytes,     ///< a size in bytes
  note,      ///< a variant's recorded note, as recorded, right-aligned
  status,    ///< a point's status with its footnotes, left-aligned
};

/// One value of a row: NaN (or empty text) where there is nothing to show; `unavailable` where the
/// metric could not be measured (the table's notes say why); `noisy` marks a duration whose point's
/// samples are noisy ("!").
struct tagged_value {
  std::string column;
  ema::hint hint = hint::number;
  double x = std::nan("");
  std::string text;  ///< the value of a label, note or status
  bool unavailable = false;
  bool noisy = false;
};

using value_row = std::vector<tagged_value>;

/// The text of a value by its hint: "-" for nothing, "unavailable", "1.23 ms !", "4.56x", "78.9%".
std::string format_value_by_hint(const tagged_value& v);

/// The hint's name in machine-readable tables ("duration", "rate", ...).
const char* hint_name(ema::hint h);

/// The value a machine-readable table gives: the number (seconds, joules, bytes, a fraction of a
/// ceiling, a ratio, a rate in the column's unit) or the text of a label, note or status; null for
/// nothing or unavailable.
nlohmann::json value_json(const tagged_value& v);

/// Whether a column of this hint is right-aligned (everything but labels and statuses).
bool right_aligned(ema::hint h);

/// Whether a value shows nothing ("-" or "unavailable"): a column of only such values is dropped.
bool shows_nothing(const tagged_value& v);

}  // namespace ema
