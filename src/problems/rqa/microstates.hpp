// The source's estimator (Froguel, 000_d2722dce0c10bad2.txt, section 1, steps 1-5 and equation 1): LAM of
// random Q x Q microstates, averaged. A microstate's lines are the runs down its columns (the
// kernel's threads scan microstate[k + tid * Q] over k: fixed column, varying row), a run closed by
// a 0 or by the block's edge, so lines cut by the edge count short: the estimator's bias.
// Interpretation: the listing's histogram loop has unbalanced braces; read as "close the run at a 0
// or at the last cell". A microstate with no recurrent cell has no LAM (the kernel writes d_LAM only
// when total != 0) and is left out of the mean; the count used is reported.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "problems/rqa/rqa.hpp"

namespace ema::rqa {

/// LAM of the microstate at rows [i, i + Q), columns [j, j + Q), or -1 without a recurrent cell.
inline double microstate_lam(const input& in, std::size_t i, std::size_t j) {
  const std::size_t Q = in.s.q;
  const plot p = in.view();
  double lam = 0, total = 0;
  for (std::size_t b = 0; b < Q; ++b) {
    std::size_t run = 0;
    for (std::size_t a = 0; a <= Q; ++a) {
      if (a < Q && p.recurrent(i + a, j + b)) {
        ++run;
        continue;
      }
      if (run) {
        total += static_cast<double>(run);
        if (run >= in.s.vmin) lam += static_cast<double>(run);
        run = 0;
      }
    }
  }
  return total > 0 ? lam / total : -1;
}

/// Adds microstate s to the running sums (every variant draws the same microstates).
inline void add_microstate(const input& in, std::uint64_t s, double& sum, double& sum2, std::uint64_t& used) {
  const auto [i, j] = microstate_at(in, s);
  const double lam = microstate_lam(in, i, j);
  if (lam < 0) return;
  ++used;
  sum += lam;
  sum2 += lam * lam;
}

/// The mean and its standard error from the sums over the microstates used.
inline estimate microstates_estimate(std::uint64_t samples, std::uint64_t used, double sum, double sum2) {
  estimate e;
  e.samples = samples;
  e.used = used;
  if (used) {
    const double n = static_cast<double>(used);
    e.value = sum / n;
    e.se = used > 1 ? std::sqrt(std::max(0.0, (sum2 - sum * sum / n) / (n - 1)) / n) : 0;
  }
  return e;
}

/// The seed variants' not_applicable: a Q x Q microstate must fit in the plot of n values.
inline const char* microstates_fit(const param_set& p, std::uint64_t n) {
  const auto m = static_cast<std::uint64_t>(p.integer("m")), tau = static_cast<std::uint64_t>(p.integer("tau"));
  return embedded_vectors(n, m, tau) < static_cast<std::uint64_t>(p.integer("Q"))
             ? "the seed estimator's Q x Q microstates do not fit in the plot (Q > N vectors)"
             : nullptr;
}

inline void require_microstates(const input& in) {
  if (in.vectors() < in.s.q)
    throw std::runtime_error("Q = " + std::to_string(in.s.q) + " is larger than the " + std::to_string(in.vectors()) +
                             " vectors of the plot: choose Q <= N");
}

}  // namespace ema::rqa
