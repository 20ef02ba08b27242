// Result tables: per problem and parameter set, one row per (n, variant) with median total and
// kernel time, achieved bandwidth and its share of the machine's ceiling, speedup against `seq`
// and `omp`, energy per operation and status; footnotes give every reason. Rendered as aligned
// text or as Markdown.
#pragma once

#include <string>

#include "report/grid.hpp"
#include "report/view.hpp"

namespace ema {

/// All tables of an experiment, with a header naming the experiment and the machine.
std::string render_tables(const experiment_view& v, table_style style);

}  // namespace ema

namespace ema {

/// The probed ceilings as a two-column table.
std::string render_ceilings(const nlohmann::json& ceilings, table_style style);

}  // namespace ema
