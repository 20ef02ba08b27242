// Fitting EMA's equation family (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2) to measured points by least
// squares on relative error, so that a point at n = 2^8 weighs as much as one at n = 2^20:
//   - shapes whose exponents are all fixed are linear in a0 and c, solved exactly (with c >= 0);
//   - shapes with an exponential term or free exponents are fitted with Eigen's Levenberg-Marquardt,
//     started from several points (the lattice fits nearest to them).
// fit_family enumerates the candidates: exponents of n and log n on a lattice of halves, each with
// and without c; exponential terms 2^n-like, 2^√n-like and 2^(n log n)-like; and free exponents
// refined from the best lattice fits. Only shapes with fewer coefficients than measured sizes are
// fitted.
#pragma once

#include <optional>
#include <vector>
#include <utility>

#include "analysis/equation.hpp"

namespace ema::fit {

/// Measured values: (n, y) pairs; a repeated n is a replicate. Values must be positive.
struct series {
  std::vector<double> n, y;

  void add(double size, double value) {
    n.push_back(size);
    y.push_back(value);
  }
  std::size_t size() const { return n.size(); }
  /// The distinct sizes, ascending.
  std::vector<double> sizes() const;
  /// The arithmetic mean of the replicates at each distinct size (same order as sizes()).
  std::vector<double> means() const;
  /// The points with lo <= n <= hi.
  series within(double lo, double hi) const;
  /// One point per size in log-log space: ln n, and the mean of ln y over its replicates (sizes
  /// and values that are not positive left out), ascending.
  std::pair<std::vector<double>, std::vector<double>> log_log() const;
};

/// Fills in an equation's errors against the data: mse and mae over every replicate, max_rel_err
/// over the per-size means.
void score(equation& e, const series& data);

/// Fits the coefficients of `start.form` to the data, starting from `start`'s values; nullopt when
/// the shape cannot describe the data (a0 would not be positive, or the fit diverged).
std::optional<equation> fit_shape(const series& data, const equation& start);

/// With a constant, whether the growing term carries at least 5% of the value at three of `sizes`
/// or more and c at least 1% at the smallest: otherwise the fit describes one point's noise, or
/// is the shape without c.
bool identified(const equation& e, const std::vector<double>& sizes);

struct family_options {
  double max_n_exponent = 4;    ///< the lattice of n's exponent: 0, 0.5, ..., this
  double max_log_exponent = 3;  ///< the lattice of log n's exponent: 0, 0.5, ..., this
  bool exponential = true;      ///< include the exponential terms
  bool free_exponents = true;   ///< include free exponents refined from the lattice
};

/// Every candidate that could be fitted, one per shape, scored against the data.
std::vector<equation> fit_family(const series& data, const family_options& options = {});

}  // namespace ema::fit
