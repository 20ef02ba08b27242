// Processor counts as a dimension of the fits (issue 32): every variant of an experiment measured at
// several values of a processor axis (`ema run --threads 1..16`: the launch setting
// launch.omp_threads) is fitted in n and p as T(n, p) = W(n)/p + D(n) (analysis/scaling.hpp), its
// W weighed against the work the problem declares, as `ema fit` prints it and `ema report` draws it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/scaling.hpp"
#include "analysis/weak_scaling.hpp"
#include "report/fits.hpp"
#include "report/grid.hpp"
#include "report/view.hpp"

namespace ema {

/// The processor axes a point's parameters may hold, and what each counts.
struct processor_axis {
  const char* key;   ///< the stored parameter: "launch.omp_threads"
  const char* what;  ///< "OpenMP threads"
};
inline constexpr processor_axis processor_axes[] = {{"launch.omp_threads", "OpenMP threads"}, {"launch.sms", "SMs"}, {"launch.gpus", "GPUs"}};

struct variant_scaling {
  std::string problem, variant, backend, metric, unit;
  std::string params_json;                        ///< the other parameters
  std::string axis;                               ///< processor_axis::what
  std::optional<fit::scaling_analysis> analysis;  ///< strong scaling: T(n, p) = W(n)/p + D(n)
  std::string skipped;                            ///< why there is no strong-scaling analysis ("" for a weak-scaling series)
  /// Weak scaling (`ema run --weak`): one per size at the smallest count, its sizes grown with p.
  std::vector<fit::weak_analysis> weak;
  std::string weak_skipped;  ///< why a weak-scaling series was not analysed
};

/// Every (problem, other parameters, variant) of the experiment measured at two or more values of
/// a processor axis, fitted in n and p (each point's value as `r.stat` of its samples, the
/// instances of a size replicates); in a weak-scaling experiment (its plan's `weak` sizes, or data
/// where no size was measured at two counts), each chain of sizes grown with p analysed as weak
/// scaling instead. Empty when no variant was.
std::vector<variant_scaling> fit_scaling(const experiment_view& v, const fit_request& r);

/// For the terminal or Markdown: per variant the model, W and D with verdicts, the parallelism, the
/// isoefficiency and the measured speedups with Karp–Flatt.
std::string render_scaling(const std::vector<variant_scaling>& s, table_style style);

nlohmann::json scaling_json(const std::vector<variant_scaling>& s);

/// For the HTML report: a section with, per variant, the speedup against p at each size measured on
/// one processor (the ideal and the model at the largest size beside it), the efficiency against p
/// with 0.5 marked, and the text of render_scaling; "" when there is nothing to show. `chart_id`
/// numbers the charts of the page.
std::string scaling_html(const std::vector<variant_scaling>& s, int& chart_id);

}  // namespace ema
