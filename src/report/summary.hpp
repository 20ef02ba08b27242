// The answer first: per problem (and parameter set) of an experiment, what a reader looks for
// before any chart — which variant is fastest over which sizes, how much faster each is than its
// baseline at the largest size both ran (with a 95% bootstrap interval, flagged when it spans 1×),
// and each variant's fitted class with its verdict. `ema report` opens each problem with it.
#pragma once

#include <string>
#include <vector>

#include "report/fits.hpp"
#include "report/table.hpp"
#include "report/view.hpp"

namespace ema {

/// The summary of one problem and parameter set as Markdown or text; `total_fits` are the fits of
/// the total time (any problem's; those of this one are picked).
std::string render_summary(const experiment_view& v, const std::string& problem, const std::string& params_json,
                           const std::vector<variant_fit>& total_fits, table_style style);

/// The overview across every problem of the experiment, the report's first screen (issue 31,
/// item 2): one row per problem, parameter set and variant, with the sizes over which it is the
/// fastest, how its total time grows (class, exponent of n with its 95% interval, verdict) and its
/// speedup against its baseline (the same algorithm's seq, else the reference algorithm's) at the
/// largest size both ran. Empty when no point ran ok.
std::string render_overview(const experiment_view& v, const std::vector<variant_fit>& total_fits, table_style style);

}  // namespace ema
