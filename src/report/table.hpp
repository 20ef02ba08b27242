// Result tables: per problem and parameter set, one row per (n, variant) with median total and
// kernel time, achieved bandwidth and its share of the machine's ceiling, speedup against `seq`
// and `omp`, energy per operation and status; footnotes give every reason. Rendered as aligned
// text or as Markdown.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "report/grid.hpp"
#include "report/values.hpp"
#include "report/view.hpp"

namespace ema {

/// One result table as tagged values (report/values.hpp), before any printer formats it.
struct result_table {
  std::string problem;
  std::string params;             ///< the parameters its heading shows, "k=v,..." (those at the problem's defaults left out)
  std::string size_meaning;       ///< what n is
  std::vector<value_row> rows;    ///< a row per (n, variant, tuning values), every column
  std::set<std::string> dropped;  ///< the columns with nothing to show, which every printer leaves out
  std::string legend;             ///< the notes under it (what the columns mean, footnotes), in `style`
};

/// The experiment's result tables: one per problem and parameter set, in plan order.
std::vector<result_table> result_tables(const experiment_view& v, table_style style);

/// All tables of an experiment, with a header naming the experiment and the machine.
std::string render_tables(const experiment_view& v, table_style style);

/// The tables as JSON (schema "ema.tables/1"): per table its problem, parameters, columns (name and
/// hint) and rows, each value a number in the hint's unit or a text, with the text the terminal
/// shows beside it, and its legend; for notebooks and scripts.
nlohmann::json tables_json(const experiment_view& v);

/// The tables as CSV, one line per value: table,problem,params,n,variant,column,hint,value,text.
std::string tables_csv(const experiment_view& v);

}  // namespace ema

namespace ema {

/// The probed ceilings as a two-column table.
std::string render_ceilings(const nlohmann::json& ceilings, table_style style);

/// The machine an experiment ran on as a reader wants it (issue 31, item 2): the CPU, its cores
/// and caches in KiB and MiB, memory, each GPU, CUDA; a field the stored description lacks, or
/// holds as something else, is left out.
std::string render_machine(const nlohmann::json& machine, table_style style);

}  // namespace ema
