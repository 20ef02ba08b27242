// The report of an experiment (`ema report`): one self-contained HTML file that works offline
// (charts as inline SVG, a few lines of script to show and hide series), or Markdown. Per problem
// and parameter set: log-log charts of each metric per variant with the best equation drawn over
// the measured points and its confidence band, and the knee where one was found; the speedup
// curves; the phase breakdown of GPU variants (kernel against transfers against total, the rest
// being overhead); memory and energy; the equation groups; the results and repeated-runs tables.
// Then the machine and its probed ceilings. Every name that comes from the database is escaped.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "report/fits.hpp"
#include "report/view.hpp"

namespace ema {

/// The fits of every metric the report draws, by metric name.
using fits_by_metric = std::map<std::string, std::vector<variant_fit>>;

/// The metrics a report fits and draws: those the experiment has, the bookkeeping ones left out.
std::vector<std::string> report_metrics(const experiment_view& v);

std::string render_html(const experiment_view& v, const fits_by_metric& fits);

/// A chart of the report as a file of its own.
struct svg_file {
  std::string name;  ///< "03-sort-total-time.svg": its place in the report, its section and title
  std::string text;  ///< a standalone SVG document, its style inside it
};
/// Every chart of a report render_html wrote, in page order, each a standalone SVG document (for a
/// paper: `ema report --svg DIR`).
std::vector<svg_file> charts_as_svg(const std::string& html);
std::string render_markdown(const experiment_view& v, const fits_by_metric& fits);

}  // namespace ema
