// The column families of a result table (issue 30, item 1): each turns one row's points (a variant
// at one n, its input instances pooled) into tagged values (report/values.hpp) for the columns it
// owns, and leaves what the table's notes must say (footnotes, noisy points, unavailable metrics)
// in table_notes. report/table.cpp calls them in column order and prints the values by hint.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/problem.hpp"
#include "report/grid.hpp"
#include "report/values.hpp"
#include "report/view.hpp"

namespace ema {

/// What the rows leave for the notes under the table.
struct table_notes {
  std::vector<std::string> footnotes;  ///< "[k] variant n=...: reason"
  std::vector<std::string> noisy_rows;
  std::map<std::string, std::set<std::string>> unavailable;  ///< metric -> reasons
  /// "vs seq of omp" -> what that speedup holds besides threads (report/view.hpp speedup_caveat).
  std::map<std::string, std::string> caveats;
};

/// A metric over a row's points: the median of the medians of those that ran ok (NaN when none).
double pooled_median(const std::vector<const point_view*>& points, const std::string& metric);

/// One row: its points and what the families need to know of the table they are in.
struct row_context {
  std::vector<const point_view*> points;  ///< the row's points: one per input instance
  std::string label;                      ///< the variant, with its tuning values
  std::vector<std::string> point_labels;  ///< each point's, for its footnote
  table_style style = table_style::text;
  const problem_desc* desc = nullptr;                     ///< nullptr: a problem this build does not register
  std::optional<param_set> declared;                      ///< the parameters as the problem declares them, if they are
  const nlohmann::json* ceilings = nullptr;               ///< the experiment's probed ceilings
  const std::map<std::string, double>* totals = nullptr;  ///< each variant's pooled total at this n
  const std::vector<variant_identity>* identities = nullptr;

  double total = std::nan("");  ///< pooled("total"), computed once for every family (with_total)
  /// Set where the row's total lies off both its neighbours along the variant's sizes: how far
  /// (+0.4: 40% slower than the line through them).
  std::optional<double> off_neighbours;

  /// A metric over the row: the median of its points' medians (those that ran ok).
  double pooled(const std::string& metric) const;
  /// The context with `total` pooled.
  row_context& with_total() {
    total = pooled("total");
    return *this;
  }
  /// Whether the row has a total time (a point ran ok).
  bool ok() const { return std::isfinite(total); }
  const point_record& record() const { return points.front()->record; }
};

/// n and the variant's label (×k: k input instances pooled).
void identity_values(const row_context& r, value_row& out);
/// The total time, marked noisy where over 2% of the samples are outliers or the median's
/// relative standard error is above 5% (named in notes.noisy_rows).
void total_value(const row_context& r, table_notes& notes, value_row& out);
/// The kernel time.
void kernel_value(const row_context& r, value_row& out);
/// A user's program (`ema exec`): its CPU times, peak memory and the phases it reported.
void external_values(const row_context& r, const std::set<std::string>& phases, value_row& out);
/// The problem's rate (its work model's bytes or operations over the kernel time, else the total),
/// the bandwidth the problem declares beside a rate of operations (summary_kind::bandwidth), and the
/// percent of the probed ceiling.
void rate_values(const row_context& r, value_row& out);
/// The problem's declared bandwidth summary, if any.
const summary_desc* declared_bandwidth(const problem_desc* desc);
/// The speedup in total time against the same algorithm's seq and omp variants (else the reference
/// algorithm's).
/// Where a speedup holds more than threads or a GPU (variant_desc::speedup_caveat), notes.caveats says what.
void speedup_values(const row_context& r, table_notes& notes, value_row& out);
/// Energy per run, the meter's mean power over its window, and the energy-delay product; or why the
/// meter could not read (notes.unavailable).
void energy_values(const row_context& r, table_notes& notes, value_row& out);
/// The notes the problem declares (problem_desc::summaries, summary_kind::note) as its variants record them.
void summary_values(const row_context& r, value_row& out);
/// The row's status, every point's reason a footnote (notes.footnotes).
void status_value(const row_context& r, table_notes& notes, value_row& out);

}  // namespace ema
