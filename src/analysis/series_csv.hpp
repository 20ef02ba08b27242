// Data from elsewhere for `ema fit --csv FILE`: a header line `n,value`, then one measurement per
// line; a repeated n is a replicate. Blank lines and lines starting with '#' are ignored.
#pragma once

#include <istream>
#include <string>

#include "analysis/fit.hpp"

namespace ema::fit {

/// Parses CSV text (a UTF-8 byte-order mark skipped). Throws std::invalid_argument naming the line
/// and what is wrong with it, usage_error for a line past the reader's bound (inputs/text_file.hpp).
series parse_series_csv(std::istream& in, const std::string& name);

/// Reads a CSV file; throws usage_error when it is not a regular file that can be read, and as
/// parse_series_csv.
series read_series_csv(const std::string& path);

}  // namespace ema::fit
