// Data from elsewhere for `ema fit --csv FILE`: a header line `n,value`, then one measurement per
// line; a repeated n is a replicate. Blank lines and lines starting with '#' are ignored.
#pragma once

#include <istream>
#include <string>

#include "analysis/fit.hpp"

namespace ema::fit {

/// Parses CSV text. Throws std::invalid_argument naming the line and what is wrong with it.
series parse_series_csv(std::istream& in, const std::string& name);

/// Reads a CSV file; throws std::invalid_argument when it cannot be read or parsed.
series read_series_csv(const std::string& path);

}  // namespace ema::fit
