// Problem `rqa`: recurrence quantification analysis of a time series. Source:
// Froguel, 000_d2722dce0c10bad2.txt ("Quantificação de Análise de Recorrência Eficiente na GPU": laminarity
// from random Q x Q microstates, one CUDA block per microstate, equation 1, Table 1). n is the length
// of the series.
//
// Conventions (every one a parameter, recorded with each result): vectors v_i = (x_i, x_{i+tau},
// ..., x_{i+(m-1)tau}), i < N = n - (m - 1) tau; R_ij = 1 when d(v_i, v_j) < eps (strict, the
// source's `val < e`) or <= eps, d the maximum, Euclidean or Manhattan norm, and |i - j| >= w
// (Theiler window w: w = 1 excludes only the line of identity, w = 0 nothing). Lines are maximal
// runs of recurrent cells along a diagonal (both triangles) or down a column; the window's cells
// are not recurrent, so they end lines.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/host_device.hpp"
#include "core/problem.hpp"
#include "measure/host_array.hpp"

namespace ema::rqa {

enum class norm_kind { max, euclidean, manhattan };

struct settings {
  std::size_t m = 1, tau = 1, theiler = 1, lmin = 2, vmin = 2;
  norm_kind norm = norm_kind::max;
  double eps = 0.3;  ///< the threshold in the series' units, after eps_mode is applied
  bool strict = true;
  std::size_t q = 200;            ///< microstate side Q (the source's code: 200)
  std::uint64_t samples = 1000;   ///< microstates the seed estimator draws
  std::uint64_t cells = 1000000;  ///< cells the motif estimator draws (outside the window) per round
  double rse = 0;                 ///< > 0: the motif estimator draws rounds until LAM's relative error is at most this
};

/// d(v, u) for norm K between the vectors at a and b (components a[k tau], k < m, in order); the
/// Euclidean norm squared (it is compared with eps^2).
template <norm_kind K>
EMA_HD inline double distance(const double* a, const double* b, std::size_t m, std::size_t tau) {
  double d = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const double diff = a[k * tau] - b[k * tau];
    const double e = diff < 0 ? -diff : diff;
    if constexpr (K == norm_kind::max)
      d = e > d ? e : d;
    else if constexpr (K == norm_kind::manhattan)
      d += e;
#ifdef __CUDA_ARCH__
    else
      d = __dadd_rn(d, __dmul_rn(e, e));
#else
    else
      d += e * e;
#endif
  }
  return d;
}

/// The plot's cells as every variant evaluates them, on the host and on the device (EMA_HD): the
/// same operations in the same order, never fused into multiply-adds (the Euclidean norm squares
/// and adds with explicit roundings on the device; the host build does not contract), so every
/// variant sees exactly the same plot. `d <= eps` is tested as `d < nextafter(eps, inf)`, which is
/// the same test on doubles.
struct plot {
  const double* x = nullptr;
  std::size_t N = 0, m = 1, tau = 1, w = 1;
  norm_kind norm = norm_kind::max;
  double limit = 0;  ///< recurrent when d < limit (eps, eps^2 for the Euclidean norm, or the next double)

  /// d(v_i, v_j) < limit, the window aside.
  template <norm_kind K>
  EMA_HD bool close_as(std::size_t i, std::size_t j) const {
    return distance<K>(x + i, x + j, m, tau) < limit;
  }
  EMA_HD bool close(std::size_t i, std::size_t j) const {
    if (norm == norm_kind::max) return close_as<norm_kind::max>(i, j);
    if (norm == norm_kind::manhattan) return close_as<norm_kind::manhattan>(i, j);
    return close_as<norm_kind::euclidean>(i, j);
  }
  /// R_ij, window included.
  EMA_HD bool recurrent(std::size_t i, std::size_t j) const {
    const std::size_t gap = i > j ? i - j : j - i;
    return gap >= w && close(i, j);
  }
};

/// N = n - (m - 1) tau, the vectors of dimension m and delay tau in a series of n values, or 0 when
/// there is none; never overflowing, whatever m and tau are.
constexpr std::size_t embedded_vectors(std::size_t n, std::size_t m, std::size_t tau) {
  if (n == 0 || m == 0) return 0;
  if (m > 1 && tau > (n - 1) / (m - 1)) return 0;  // (m - 1) tau >= n
  return n - (m - 1) * tau;
}

struct input {
  host_vector<double> x;  ///< the series: in pinned memory for a CUDA variant (its copy to the device runs at full speed)
  settings s;
  std::uint64_t seed = 0;  ///< the point's seed: estimators draw their samples from it
  std::string origin;      ///< the system or the file
  std::size_t vectors() const { return embedded_vectors(x.size(), s.m, s.tau); }

  /// The plot over `data` (the series itself, or its copy on a device).
  plot view(const double* data) const {
    const double bound = s.norm == norm_kind::euclidean ? s.eps * s.eps : s.eps;
    return {data, vectors(), s.m, s.tau, s.theiler, s.norm, s.strict ? bound : std::nextafter(bound, HUGE_VAL)};
  }
  plot view() const { return view(x.data()); }

  /// Sets the series, in host memory of the given kind.
  void set_series(const std::vector<double>& values, host_memory_kind kind = host_memory_kind::pageable) {
    x = host_vector<double>(host_allocator<double>(kind));
    x.assign(values.begin(), values.end());
  }
};

/// Line-length histograms of the whole recurrence plot: index l holds the number of lines of
/// length l (index 0 unused), sized N + 1.
struct histograms {
  std::vector<std::uint64_t> diagonal, vertical;
  std::uint64_t recurrent = 0;  ///< recurrent cells
  std::uint64_t cells = 0;      ///< cells outside the Theiler window
  bool operator==(const histograms&) const = default;
};

/// RR, DET, L, Lmax, ENTR (diagonal lines, l >= lmin) and LAM, TT, Vmax (vertical, v >= vmin).
struct quantifiers {
  double RR = 0, DET = 0, L = 0, Lmax = 0, ENTR = 0, LAM = 0, TT = 0, Vmax = 0;
};
quantifiers quantify(const histograms& h, std::size_t lmin, std::size_t vmin);

/// Counts every line of the plot of `in` directly: the full matrix built in memory, then each
/// column and each diagonal scanned. The reference for small plots (it holds N^2 bytes).
histograms reference_histograms(const input& in);

/// An estimator's answer: the quantity, its standard error over the samples, the samples drawn and
/// those that counted (a microstate without a recurrent cell has no LAM).
struct estimate {
  double value = 0, se = 0;
  std::uint64_t samples = 0, used = 0;
  bool operator==(const estimate&) const = default;
};

/// Our estimator's answer: LAM and DET with standard errors (batch means over 100 batches).
struct motif_estimate {
  estimate lam, det;
  estimate tt, l;   ///< from line starts: mean length of the lines of at least vmin / lmin
  double entr = 0;  ///< plug-in entropy of the sampled diagonal lengths of at least lmin
  bool operator==(const motif_estimate&) const = default;
};

/// A variant's answer, one of the three kinds the verifier has a contract for (verify.cpp): the
/// exact line histograms (exact-*), the source's microstate estimate of LAM (microstates-*), or our
/// estimates from random cells (motif-*).
using output = std::variant<histograms, estimate, motif_estimate>;

/// The motif estimator's counts for one batch of samples [s0, s1): recurrent cells drawn, and of
/// them those on a vertical line of at least vmin and on a diagonal line of at least lmin.
struct motif_counts {
  std::uint64_t recurrent = 0, on_vertical = 0, on_diagonal = 0;
  // Line-start sampling: a drawn cell that starts a line (recurrent, the cell before it on the line
  // is not) stands for that line, each line once: its whole length is traced.
  std::uint64_t vstarts = 0, vlength = 0;  ///< vertical lines of at least vmin: count, total length
  std::uint64_t dstarts = 0, dlength = 0;  ///< diagonal lines of at least lmin: count, total length
  std::vector<std::uint64_t> dhist;        ///< diagonal lines of at least lmin drawn, by length
};
constexpr std::uint64_t motif_batches = 100;      ///< batches per round of `cells` cells
constexpr std::uint64_t motif_max_rounds = 1000;  ///< the most rounds a target error may ask for
motif_counts motif_batch(const input& in, std::uint64_t batch);
motif_estimate motif_from_batches(const input& in, const std::vector<motif_counts>& batches);
/// The plug-in entropy -sum p ln p of a histogram of counts (ENTR of the sampled diagonal lengths).
double plugin_entropy(const std::vector<std::uint64_t>& counts);

/// The motif estimator's rounds: `round(first, out)` fills out[k] with motif_batch(in, first + k)
/// for k < motif_batches (however it likes: one thread, OpenMP); rounds are drawn until LAM's
/// standard error is at most rse times LAM (rse > 0), or after one round.
template <class Round>
motif_estimate run_motif(const input& in, Round&& round) {
  std::vector<motif_counts> all;
  for (std::uint64_t r = 0;; ++r) {
    std::vector<motif_counts> batches(motif_batches);
    round(r * motif_batches, batches);
    all.insert(all.end(), batches.begin(), batches.end());
    auto m = motif_from_batches(in, all);
    const bool enough = in.s.rse <= 0 || (m.lam.value > 0 && m.lam.se <= in.s.rse * m.lam.value);
    if (enough || r + 1 >= motif_max_rounds) return m;
  }
}

/// Where microstate s lies: rows [i, i + Q) and columns [j, j + Q) of the plot, i, j uniform in
/// [0, N - Q] from the point's seed (the source draws them on the host, xrand and yrand).
std::pair<std::size_t, std::size_t> microstate_at(const input& in, std::uint64_t s);

/// The source's estimator computed plainly: each microstate built as a Q x Q matrix, its vertical
/// lines counted column by column, LAM per microstate (equation 1), then averaged.
estimate reference_microstates(const input& in);

struct expected {
  bool have_histograms = false;  ///< the reference was affordable (N <= reference_limit)
  histograms h;
  mutable std::optional<estimate> seed;  ///< computed on the first check of a seed estimate
};
constexpr std::size_t reference_limit = 4096;

struct traits {
  static constexpr const char* name = "rqa";
  using input = rqa::input;
  using output = rqa::output;
  static input generate(const point_request& request);
  static expected reference(const input& in);
  static outcome check(const input& in, const expected& want, const output& got);
};

using kit = problem_kit<traits>;

/// The result JSON of a set of histograms: every quantifier and the settings.
std::string result_json(const input& in, const histograms& h);

}  // namespace ema::rqa
