// How far a fit can be trusted. EMA's rule for the best equation ("the equivalent one with the
// fewest coefficients", Zudio et al., 003_7e2665a3d38c50fb.txt section 2) assumes the data can decide between
// the candidates; on real machines they often cannot (a budget that stopped below a cache's edge,
// a launch-bound stretch, noise as large as the differences). A verdict says so, says why, and
// says what would settle it:
//   firm          nothing below holds: the class can be quoted;
//   tentative     the data lean to the class but do not pin it: too few sizes or too small a range
//                 in the fitted regime, a leading exponent whose 95% interval spans two classes, a
//                 held-out check that misses or picks another class, an error above the noise, an
//                 exotic form (an exponential, a fractional power of log) that wins;
//   inconclusive  no equation of the family describes the data within the noise, the regime has
//                 too few sizes to fit at all, or the held-out check both misses and changes class.
// Thresholds scale with the noise measured from the replicates (or from each point's repetitions),
// with a floor (5%, the least that tells two classes apart): σ is the relative standard error of
// a fitted value (a size's mean of its replicates, or a point's median of its repetitions), the
// median over the sizes, and the best equation's error at a size counts as large beyond
// max(4σ, 5%) (tentative) or max(10σ, 10%) (inconclusive). One size alone between the two, not
// the largest, among at least 8 whose misses keep no trend, is an outlier the verdict notes and
// does not hold the class back for.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ema::fit {

struct analysis;

enum class verdict_level { firm, tentative, inconclusive };

const char* to_string(verdict_level l);

/// A relative quantity as the verdict writes it: "17.1%", "0.042%".
std::string percent(double x);

struct verdict {
  verdict_level level = verdict_level::firm;
  std::vector<std::string> reasons;  ///< why it is not firm, one line each
  std::vector<std::string> notes;    ///< what was weighed and did not hold it back (one outlying size), one line each
  double noise = 0;                  ///< σ: the relative standard error of a fitted value (NaN: unmeasured)
  std::optional<double> next_size;   ///< what would settle it: the next size to run ...
  std::optional<double> predicted;   ///< ... and the best equation's value there
  /// Or: how many times as many sizes over the fitted regime would exclude the classes left
  /// beside the answer, where that is at most 8 (`ema fit --more-sizes` measures them)
  std::optional<double> more_sizes;
  /// {"level", "reasons", "notes", "noise", "next_size", "predicted", "more_sizes"}
  nlohmann::json to_json() const;
};

/// The relative standard error of a series' per-size means: over the sizes with replicates, the
/// median of sd / mean / √count; NaN when no size has two values.
double replicate_noise(const std::vector<double>& n, const std::vector<double>& y);

/// The noise of a fitted value over `data`: the larger of its replicates' (replicate_noise) and
/// `outside` (each point's repetitions; NaN when unknown); NaN when neither is measured.
double measured_noise(const std::vector<double>& n, const std::vector<double>& y, double outside);

/// Judges an analysis. `noise` is the relative standard error of a fitted value measured elsewhere
/// (each point's repetitions); NaN when only the replicates can tell it.
verdict judge(const analysis& a, double noise);

}  // namespace ema::fit
