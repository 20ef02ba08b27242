// Human units for reports: times, bytes, bandwidths, energies, ratios.
#pragma once

#include <string>

namespace ema {

std::string format_time(double seconds);  ///< "812 ns", "1.25 ms", "3.40 s"
std::string format_bytes(double bytes);
/// A size n in prose, one notation throughout: "2^20" for a power of two from 1024, "1448" for
/// an integer below 10^5, else three digits and a decimal suffix: "1.14M", "157M", "9.59T".
std::string format_size(double n);
std::string format_rate(double bytes_per_s);  ///< "12.3 GB/s" (decimal, as bandwidths are quoted)
std::string format_energy(double joules);     ///< "4.21 mJ"
std::string format_ratio(double r);           ///< "3.70x"
std::string format_percent(double fraction);  ///< "95.2%"
/// A value of a metric with the given unit ("s", "B", "J", "B/s").
std::string format_value(double v, const std::string& unit);

}  // namespace ema
