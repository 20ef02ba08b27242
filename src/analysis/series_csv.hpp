// Data from elsewhere for `ema fit --csv FILE`, in either of two forms:
//   - a header line `n,value`, then one measurement per line; a repeated n is a replicate. Blank
//     lines and lines starting with '#' are ignored;
//   - what `ema show --csv` writes (a header starting `experiment,problem,variant`, a row per point
//     and metric, fields quoted as RFC 4180 has it): the rows of one metric that ran ok, each
//     point's median a value, one series per problem, variant and parameter set.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "analysis/fit.hpp"

namespace ema::fit {

/// Parses CSV text (a UTF-8 byte-order mark skipped). Throws std::invalid_argument naming the line
/// and what is wrong with it, usage_error for a line past the reader's bound (inputs/text_file.hpp).
series parse_series_csv(std::istream& in, const std::string& name);

/// Reads a CSV file; throws usage_error when it is not a regular file that can be read, and as
/// parse_series_csv.
series read_series_csv(const std::string& path);

/// One series of a file: `label` names it (problem, variant, parameters; the file's name for the
/// n,value form).
struct labelled_series {
  std::string problem, variant, params;
  series data;
};

/// Reads either form; `metric` selects the rows of `ema show --csv`'s form. Throws as
/// read_series_csv, and std::invalid_argument when the file holds no ok row of `metric`.
std::vector<labelled_series> read_fit_csv(const std::string& path, const std::string& metric);

}  // namespace ema::fit
