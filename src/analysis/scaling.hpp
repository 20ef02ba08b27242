// The cost in n and p, the number of processors (issue 32, item 2). The source on parallel search
// (001_9fea77a744af8951.txt, section 1) judges a parallel algorithm, after Grama et al., by its time,
// overhead, speedup, efficiency and cost, and its Figures 3-4 by how the cost moves with more
// processors; EMA fits T(n) alone. Here the same measurements, taken at several processor counts
// (`ema run --threads 1..16`), are fitted as
//
//     T(n, p) = W(n) / p + D(n) (+ o · log2 p),     W(n) = w · g(n),  D(n) = d · h(n) (+ c),
//
// Brent's bound read backwards: W is the part that divides among the p processors (the empirical
// work) and D the part that does not (the span, or a shared resource that p does not multiply: a
// memory bus a streaming kernel saturates, a serial section, a barrier). g and h are coarse classes
// of the class set (1, log n, √n, n, n log n, n², n² log n, n³, n⁴), h at most g; D may be absent
// (all of the cost divides); the term o · log2 p, where the points demand it, is a cost of the
// processors themselves (a fork and join, a barrier, a reduction across p). Each pair is judged by held-out prediction, as the class set judges
// T(n) (class_set.hpp): each (n, p) point left out in turn, the pair fitted to the rest by least
// squares on relative error, its prediction compared in ln T; a pair is excluded when its held-out
// errors exceed the best pair's by more than the noise explains (evidence above 10, and with any
// one point left out of the sum). The class of W is firm when every pair left has the best's W,
// D's likewise; a W growing slower than the work the variant must do is excluded by the work.
//
// From the model: the speedup S(n, p) = T(n, 1) / T(n, p), the efficiency E = S / p, the cost
// p · T (Grama et al., as the source cites them); the parallelism W/D + 1 = T(n, 1) / T(n, ∞); the
// largest p that keeps E >= 0.5 at a size; and the isoefficiency function (Grama et al.): how the
// work must grow with p to hold E fixed — E = (W + D) / (W + p·D), so W(n) / D(n) must grow as p.
// Measured, per p: S, E, cost and the experimentally determined serial fraction of Karp and Flatt
// (1990), e = (1/S − 1/p) / (1 − 1/p), which stays flat when the loss is a serial part and grows
// with p when it is overhead that grows with p.
#pragma once

#include <nlohmann/json.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/equation.hpp"
#include "analysis/normal_form.hpp"
#include "analysis/verdict.hpp"

namespace ema::fit {

/// Measured values at (n, p); a repeated (n, p) is a replicate. Values must be positive.
struct scaling_series {
  std::vector<double> n, p, y;
  void add(double size, double procs, double value) {
    n.push_back(size);
    p.push_back(procs);
    y.push_back(value);
  }
  std::size_t size() const { return n.size(); }
  std::vector<double> sizes() const;  ///< distinct, ascending
  std::vector<double> procs() const;  ///< distinct, ascending
};

/// T(n, p) = w · g(n) / p + d · h(n) + c (+ o · log2 p).
struct work_span_model {
  theta_class work, span;  ///< g's and h's classes; span unused without it
  bool has_span = false;   ///< D present
  bool constant = false;   ///< c beside a growing D
  /// o · log2 p: a cost of the processors themselves, growing with their number (a fork and join,
  /// a barrier or a reduction across p: a tree of log p steps); 0 on one processor.
  bool overhead = false;
  double w = 0, d = 0, c = 0, o = 0;
  double cv = 0;            ///< mean squared held-out error of ln T
  double evidence = 0;      ///< against the chosen pair (0 for it)
  bool excluded = false;    ///< by the data
  bool below_work = false;  ///< left by the data, its W growing slower than the work: excluded by the work

  double W(double n) const;
  double D(double n) const;  ///< d · h(n) + c; 0 without a span
  double operator()(double n, double p) const { return W(n) / p + D(n) + (overhead ? o * std::log2(p) : 0.0); }
  int coefficient_count() const { return 1 + has_span + constant + overhead; }
  /// "W(n) = 2.1e-09 · n, D(n) = 3.4e-06 · log2(n) + 1.2e-05"
  std::string formula() const;
  std::string pair_text() const;  ///< "W Θ(n), D Θ(log n)"
};

/// One processor count at one size: what was measured and what the model says.
struct scaling_row {
  double p = 0;
  double measured = 0;                           ///< the mean of the replicates
  double predicted = 0;                          ///< the model's T(n, p)
  double speedup = 0, efficiency = 0, cost = 0;  ///< measured, against p = 1 at the same n
  std::optional<double> karp_flatt;              ///< for p > 1
};

struct isoefficiency {
  double target = 0.5;  ///< the efficiency held
  theta_class growth;   ///< of W(n) with p (written in p: Θ(p log p))
  bool exists = false;  ///< false when no n holds the target at large p (D grows as fast as W)
  /// n that holds the target at a few processor counts, from the model: (p, n).
  std::vector<std::pair<double, double>> sizes;
};

struct scaling_analysis {
  scaling_series data;
  std::vector<work_span_model> pairs;  ///< every pair fitted, by held-out error ascending
  std::size_t chosen = 0;
  const work_span_model& model() const { return pairs.at(chosen); }
  double noise = 0;  ///< σ of ln T at a point: the larger of the replicates' and the repetitions', at least 0.2%
  /// W's and D's classes with their verdicts: the classes of the pairs not excluded beside the
  /// chosen one's ("Θ(n log n)"; "none" for no D), firm when there are none.
  std::vector<std::string> work_rivals, span_rivals;
  verdict work_verdict, span_verdict;
  /// Fitted without the largest size, its prediction of that size at every p: the largest miss.
  std::optional<double> held_out_miss;
  double held_out_n = 0;
  /// At the largest size measured at the smallest processor count (base_p: 1 for threads, the
  /// smallest partition for SMs) and another: the rows, ascending in p, their speedup against
  /// base_p and their efficiency and Karp–Flatt in units of it.
  double table_n = 0, base_p = 1;
  std::vector<scaling_row> rows;
  /// From the model at the largest size: T(n, 1) / D(n) (the parallelism, ∞ without D) and the
  /// largest p that keeps E ≥ 0.5 there (∞ where nothing grows with p).
  double parallelism = 0, p_half = 0;
  isoefficiency iso;
  double from = 0;  ///< the smallest size fitted, where the sizes below were left out (scaling_options::from)
  std::string from_why;
  /// The same points in Extra-P's normal form (analysis/normal_form.hpp), its held-out error beside
  /// the work-span model's; absent where no hypothesis fits.
  std::optional<normal_form> pmnf;
  std::vector<std::string> notes;
};

struct scaling_options {
  double exclude = 10;
  /// Fit only the sizes from this one (past the last cache, where the caller knows it): a working set
  /// that leaves a cache raises the cost per unit of work, which no W(n)/p + D(n) follows.
  double from = 0;
  std::string from_why;  ///< why, for the text: "past twice the L3 (105 MiB)"
  /// What the caller knows keeps the classes from being firm (most sizes inside a cache, for a cost
  /// bound by memory): a reason both verdicts give, "" for none.
  std::string unsettled;
  /// The relative standard error of a point's value measured elsewhere (each point's repetitions);
  /// NaN: only the replicates tell it.
  double noise = std::numeric_limits<double>::quiet_NaN();
  /// The work the variant must do (analysis_options::work): no W growing slower than the fastest.
  std::vector<std::function<double(double)>> work;
};

/// Fits and judges. Throws std::invalid_argument when the data cannot be fitted: fewer than 3
/// sizes or 2 processor counts, a value that is not positive.
scaling_analysis analyze_scaling(const scaling_series& data, const scaling_options& options = {});

/// The model's efficiency against the smallest count measured (base_p): T(n, p0) / (p/p0 · T(n, p)).
double efficiency_at(const scaling_analysis& a, double n, double p);

/// The Karp–Flatt serial fraction of a speedup s on p > 1 processors.
double karp_flatt(double speedup, double p);

/// The text of a class of p: "Θ(p log p)".
std::string p_text(const theta_class& c);

/// The model, W and D with their verdicts, the parallelism, the isoefficiency and the measured
/// table, for the terminal; times in `unit` ("s": as durations).
std::string scaling_text(const scaling_analysis& a, const std::string& unit = "s");
nlohmann::json to_json(const scaling_analysis& a);

}  // namespace ema::fit
