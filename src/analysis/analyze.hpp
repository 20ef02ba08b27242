// The analysis of one measured series, as `ema fit` reports it: EMA's equation groups
// (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2), the saturation knee (Nobre et al., 001_9fea77a744af8951.txt, Figures 3
// and 4), a confidence interval for the leading exponent with a band around the best curve, and a
// held-out check. When there is a knee, the groups describe the regime above it and the knee
// carries the class below it too.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/class_set.hpp"
#include "analysis/fit.hpp"
#include "analysis/groups.hpp"
#include "analysis/knee.hpp"
#include "analysis/regimes.hpp"
#include "analysis/uncertainty.hpp"
#include "analysis/verdict.hpp"

namespace ema::fit {

struct analysis_options {
  group_options groups;
  family_options family;
  knee_options knee;
  bool find_knee = true;
  int bootstrap = 200;  ///< resamples; 0 skips the interval and the band
  std::uint64_t seed = 1;
  bool held_out = true;
  /// The relative noise measured outside the series (each point's repetitions), for the verdict;
  /// NaN: the replicates alone tell it.
  double noise = std::numeric_limits<double>::quiet_NaN();
  /// The memory hierarchy the variant's data pass through (ascending) and its working set in bytes
  /// at n (the problem's work model): with both, breakpoints near a cache's capacity are named and
  /// the fit describes the regime past the last one (regimes.hpp).
  std::vector<memory_level> caches;
  std::function<double(double)> working_set;
  /// Whether the cost is bound by moving the working set (few operations per byte): then a largest
  /// working set that still fits the last cache leaves the verdict tentative.
  bool memory_bound = false;
  /// What the variant must do at n, as its problem declares it (the bytes that must move, the
  /// operations that must be done; `ema fit --work` for other files): the cost cannot grow slower
  /// than any of them for long. An answer that does over the fitted sizes is not firm (work_floor).
  std::vector<std::function<double(double)>> work;
};

/// An answer that grows slower than the work the variant must do: a fixed cost (kernel launches,
/// latency, a synchronisation) still sets the cost over the sizes, and its class at larger n is at
/// least the work's.
struct work_floor {
  double work_exponent = 0;    ///< the work's growth, ln W(top)/W(bottom) over ln(top/bottom)
  double answer_exponent = 0;  ///< the answer's, the same way
  double past = 0;             ///< the smallest size by doublings where the work outgrows the answer 4 times past the top
};

/// Where the largest working set stands against the last cache level, for a memory-bound cost.
struct cache_residency {
  std::string cache;
  double cache_bytes = 0;
  double working_set = 0;  ///< at the largest size
  double past = 0;         ///< the size whose working set is 4 times the cache (16 past twice it; 0: none)
  /// Whether the answer grows as the work the variant must do over the fitted sizes (within half a
  /// log factor's growth there): then the cost per unit of work is flat inside the cache, and
  /// leaving it changes that cost by a bounded factor, not the class — a note, not a reason.
  /// Where the answer grows faster than the work (a cost per operation rising as the data outgrow
  /// the caches passes for a log factor), or no work is known, the verdict stays tentative.
  bool as_work = false;
  /// How many times the cache the largest working set may be and still count as resident where
  /// the answer grows faster than the work (where it grows as the work: twice).
  static constexpr double faster_window = 16;
};

struct knee_report {
  fit::knee where;
  theta_class below, above;
};

struct analysis {
  series data;
  equation_groups groups;  ///< of the regime above the knee when there is one
  /// The classes the fitted regime cannot tell apart (class_set.hpp); with the default rule its
  /// answer is groups.best. Absent when an exponential wins, or with fewer than 4 sizes.
  std::optional<class_set> classes;
  std::optional<knee_report> knee;
  /// The log-log curve's breakpoints, ascending, named where they match a cache (regimes.hpp).
  std::vector<breakpoint> breakpoints;
  /// Where the fitted regime starts (0: the smallest size) and, past a cache's edge, which it is.
  double regime_from = 0;
  std::string regime;
  /// Set when the largest working set of a memory-bound cost is within twice the last cache.
  std::optional<cache_residency> resident;
  /// Set when the answer grows slower than the work over the fitted sizes.
  std::optional<work_floor> below_work;
  /// Whether the answer grows as the work the variant must do over the fitted sizes (neither
  /// slower, `below_work`, nor faster by half a log factor or more; grows_as_work in analyze.cpp).
  /// False where no work is known.
  bool as_work = false;
  bootstrap_result uncertainty;
  std::optional<held_out_check> check;
  /// Whether the best class without the largest sizes (`check`) grows slower than the work the
  /// variant must do while the answer grows as the work: the smaller sizes are led by a fixed cost
  /// the work outgrows, so the class changing without the largest sizes is expected, not a doubt
  /// (issue 29). False where no work is known.
  bool check_below_work = false;
  /// The best equation of the fitted regime without its smallest sizes (a fifth, at least one),
  /// when six or more remain: the class must not hinge on the sizes nearest a knee.
  std::optional<equation> without_smallest;
  /// Whether `without_smallest`, with the answer's power of n and a lower power of log n, grows
  /// slower than the work the variant must do (below_work) over the sizes it fitted while the
  /// answer grows as the work (`as_work`): the larger sizes alone point to a class no variant's
  /// cost can keep at larger n, so its cost per operation falls toward the work's (a fixed cost
  /// amortised), and the class changing is no doubt of the answer.
  bool without_smallest_below_work = false;
  /// Where the answer grows faster than the work and the working set leaves the last cache inside
  /// the regime with six sizes or more over 8× past it: the best equation of those sizes alone, the
  /// cache and the first size past it (a cost per operation that steps up as the data leave the
  /// cache passes for a log factor over a range across the step).
  struct past_cache_fit {
    equation best;
    std::string cache;
    double from = 0;
  };
  std::optional<past_cache_fit> past_cache;
  fit::verdict verdict;  ///< how far the best equation can be trusted (verdict.hpp)
  /// Sizes whose measurement lies off both neighbours (class_set.hpp): a disturbance to measure
  /// again (`ema run --rerun-noisy`), named in the notes.
  std::vector<off_size> off;
};

/// An exponent of n as the answer prints it: three significant digits, 0 below 0.0005 (the
/// bootstrap of a Θ(1) cost gives 1e-13, not a growth).
std::string exponent_text(double x);

/// The answer in one line, the exponent first (issue 29): "Θ(n): exponent of n 1.02, 95% interval
/// [0.98, 1.05]; Θ(n log n) not excluded (n = 2^31 would tell)", or with steps "Θ(n) in each of 3
/// regimes (×1.9 at n ≈ 4.6e+05, ×2.3 at n ≈ 6.1e+06)".
std::string answer_text(const analysis& a);

/// Throws std::invalid_argument when the data cannot be fitted: fewer than 3 sizes, or a size or
/// value that is not positive and finite.
analysis analyze(const series& data, const analysis_options& options = {});

/// The best equation of the knee detection and groups alone (no bootstrap, no held-out check).
equation best_equation(const series& data, const analysis_options& options = {});

/// {"sizes", "points", "best", "verdict", "min_error", "equivalent", "distinguishable", "non_distinguishable",
///  "knee", "leading_exponent", "band", "held_out", "candidates"}
nlohmann::json to_json(const analysis& a);

}  // namespace ema::fit
