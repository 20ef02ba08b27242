// Which classes the data exclude (issue 29). EMA picks one best equation from the equivalent ones
// (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2: minimum error, equivalent, distinguishable with a tie
// breaker, non-distinguishable); on a real machine the answer a reader can trust is the set of
// classes the data cannot tell apart, and the size that would tell them. So every class of the
// lattice (n^a · log^b n, a in 0..4 and b in 0..3 by halves, each with and without the constant c)
// is judged by held-out prediction, as Extra-P selects its models: leave one size out, fit the
// rest, predict it (leave-one-out cross-validation on ln T). A class is *excluded* when its
// held-out errors exceed the chosen class's by more than the noise explains:
//
//     evidence = Σ_sizes (e_class² − e_chosen²) / σ²  >  `exclude` (10),
//
// and, with any one size left out of the sum, still above `exclude_without_one` (5): one size alone
// (a step at the top, a slow outlier) cannot exclude a class. The answer itself is chosen by the
// stricter rule, every sum above `exclude` (a simpler class is kept unless the data tell it apart
// that firmly); requiring as much of every sum without one size for the verdict too held back 22
// of the 170 firm verdicts the real set now has, none of them wrong (the largest size of a regime
// carries most of the evidence between a class and its log factor: held out, it is the one
// predicted from farthest).
//
// with σ the noise of a size's ln T: the larger of the replicates' (a point's repetitions, or the
// spread of its samples) and the scatter between neighbouring sizes, measured from the data's own
// second differences in log-log space (sizes run in separate processes, at different times, scatter
// by 5-30% on a real machine; repetitions within one process see only a fraction of it). A step at
// a cache's edge counts as scatter, so it widens the set rather than passing for a log factor.
// Where the scatter is a fixed time beside a share of the value (launch and timer jitter: a GPU
// kernel's microsecond sizes scatter by 20%, its millisecond sizes by 1%), each size has its own σ
// (noise_model, between_size_noise_model) and its term in the sum is divided by its own σ², the
// sum then by the chosen class's own mean of e²/σ² where that exceeds 1 (with one σ for all sizes,
// the division by max(σ², its held-out error) above). The size that settles a rival is found with
// the one σ (settling_size): nearer sizes found with each size's own were unsettled by the refit's
// knee moving up.
//
// The chosen class goes from coarse to fine: the coarse class (1, log n, √n, n, n log n, n²,
// n² log n, n³, n⁴) whose held-out error is least, unless a finer class excludes every coarse one
// and cuts the held-out error `fine_gain` times. Firm means no other class is left (for a coarse
// answer, no other coarse class); otherwise each class not excluded is named with the size that
// would exclude it were the answer right: the smallest above the data at which one more size,
// measured as the answer predicts but one σ toward the class left, excludes it by this rule with
// both fitted again (a set judged with steps or lower-order terms: where the two fits differ by
// max(4σ, 5%)).
//
// Steps (issue 29, item 3): a cost that steps up at a cache's edge is not a log factor. Each coarse
// class is also fitted with one or two steps up in its cost per unit (ln T = ln g(n) + a level per
// stretch of sizes, each stretch at least 3 sizes, each step at least ×1.5), held out like the
// rest (with one size held out, a stretch of 2 left counts: else the sizes past a step at the top
// could never be predicted from their own level, and 3 sizes past it would not be enough); when such a fit predicts fine_gain times better than every class without steps, the set
// is judged with steps ("Θ(n) in each of 3 regimes; ×1.9 at n ≈ 4.5e+05, ×2.3 at n ≈ 6e+06").
//
// A lower-order term: a cost made of a part that grows slowly and a part that grows fast — a GPU
// elimination's n kernel launches (launch-bound, Θ(n)) beside its n³ arithmetic, a merge sort's
// log n passes beside its n log n work — follows neither class alone over a range where both
// show, and the single class that fits best is the slow one. Each coarse class g (from 6 sizes)
// is also fitted as a0 · g(n) + d · h(n) (+ c), h a coarser class below it, d > 0, both terms
// carrying at least 5% of the value at three sizes or more, g growing two_term_spread times more
// than h over the sizes, and g carrying at least half the value at the largest; the class is g's.
// Used like steps, when such a fit predicts the held-out sizes two_term_gain times better than
// every class without.
//
// The work as the tie breaker: where the variant's work is known (a comparison sort's n log n
// comparisons, an elimination's n³ flops), the data often cannot tell the class the work demands
// from a slower one (n log n from n over 16 cores' scatter) and parsimony would pick the slower. A
// cost cannot grow slower than its work for long, so of the coarse classes the data do not exclude,
// the answer is never one that grows slower over the sizes than the work; where the class that
// predicts best does, the answer is the slowest-growing class at the work's growth that is not
// excluded against it; where the data exclude every such class, the fastest-growing power of n
// below the work that they leave (never a log factor alone; none faster than the best: it stays). The
// classes the data leave that grow slower than the work, beside an answer that does not, are then
// excluded by the work (below_work), not rivals: the answer is firm when the data exclude every
// faster class. An answer still below the work is never firm (analysis.hpp, work_floor).
//
// The work's class beside a lower term: where even so the answer grows slower than the work (the
// data exclude every class at the work's growth fitted alone), the slowest class at the work's
// growth is fitted again with the answer's class as a lower-order term, a0 · g(n) + d · h(n) (+ c),
// both terms carrying 5% of the value at three sizes or more; when that fit predicts the held-out
// sizes better than the answer and the data do not tell it from the answer, it is the answer (a
// merge sort's per-key overhead, Θ(n), beside its n log n comparisons), and the answer's class is
// excluded by the work. Not for a sublinear answer: that is a launch- or latency-bound start,
// whose class the largest sizes show (analyze.hpp).
//
// The work's class less a lower term: where the answer grows faster than the work (a merge sort
// whose leaves are sorted in a cache, each level then costing a key more than a leaf level did:
// T = a · n log2(n/leaf) + b · n, a line in log n per key that meets zero above n = 1, passes for
// Θ(n log² n)), the slowest coarse class at the work's growth is fitted again as
// a0 · g(n) − d · h(n) (+ c), h the coarse class just below g, both terms 5% of the value at three
// sizes or more and the fit positive at every size; when that fit predicts the held-out sizes
// better than the answer and the data do not tell it from the answer, it is the answer. The
// faster class stays beside it where the data leave it (a cost above the work is possible), so the
// verdict is firm only where the data exclude every other coarse class.
#pragma once

#include <cmath>
#include <algorithm>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/fit.hpp"

namespace ema::fit {

struct class_set_options {
  double exclude = 10;             ///< evidence above which a class is excluded
  double exclude_without_one = 5;  ///< and above which it stays with any one size left out
  double fine_gain = 4;            ///< how many times a finer class must cut the held-out error
  double step_gain = 2;            ///< how many times a class with steps must cut it
  double two_term_gain = 4;        ///< how many times a class with a lower-order term must cut it
  double min_step = 1.5;           ///< the smallest step up a class with steps may take
  std::size_t two_term_sizes = 6;  ///< the fewest sizes a class with a lower-order term is fitted to
  double two_term_spread = 8;      ///< how many times more its leading term must grow than the lower one
  double max_n_exponent = 4, max_log_exponent = 3;
  /// The work the variant must do (analysis_options::work): among the classes the data cannot tell
  /// apart, none that grows slower over the sizes than the fastest of these is chosen (the work as
  /// EMA's tie breaker; see below).
  std::vector<std::function<double(double)>> work;
};

/// A step up in cost per unit of the class: where the working set outgrows a cache, a scan's
/// cost per element rises by a factor and then grows as before.
struct cost_step {
  double n = 0;       ///< where it lies: between the two sizes it separates (geometric mean)
  double factor = 1;  ///< the cost per unit of the class past it over the cost before it
};

struct judged_class {
  theta_class cls;
  /// Fitted to the whole regime (the better of with and without c, held out; with the set judged
  /// with lower-order terms, with one where that predicts better: cls is its leading term's).
  equation eq;
  double cv = 0;        ///< mean squared held-out error of ln T
  double evidence = 0;  ///< against the chosen class (0 for it)
  bool coarse = false;
  bool excluded = false;
  /// Not excluded by the data, but growing slower over the sizes than the work the variant must do,
  /// where the answer does not: excluded by the work (a cost cannot grow slower than its work for
  /// long), so no rival.
  bool below_work = false;
  /// With steps (the answer's kind, when the set was judged with steps): where the cost steps up,
  /// ascending; `eq` is then the class fitted past the last step.
  std::vector<cost_step> steps;
  /// The class's value at n, its steps included.
  double value(double n) const {
    double v = eq(n);
    for (const auto& s : steps)
      if (n < s.n) v /= s.factor;
    return v;
  }
  std::optional<double> settle;  ///< the smallest size above the data where it differs enough from the answer
};

/// The scatter between sizes as a share of the time beside a fixed time (timer and launch jitter,
/// which scatters the quickest sizes most): σ of ln T at a value T is √(relative² + (fixed / T)²).
/// A GPU kernel's sizes of a few microseconds scatter by 20% where its sizes of milliseconds agree
/// to 1%; one σ for both would weigh the quiet largest sizes, which carry what tells a class from
/// its log factor, like the noisy smallest ones.
struct noise_model {
  double relative = 0;  ///< σ of ln T where the fixed part is negligible
  double fixed = 0;     ///< in the values' unit; 0 where the data do not call for it
  double at(double t) const { return std::sqrt(relative * relative + (t > 0 ? (fixed / t) * (fixed / t) : INFINITY)); }
};

struct class_set {
  std::vector<judged_class> classes;  ///< by held-out error, ascending
  std::size_t chosen = 0;             ///< index into classes
  double noise = 0;                   ///< σ of ln T at a size: the larger of the two below
  double between = 0;                 ///< the scatter between neighbouring sizes (NaN with fewer than 4)
  double replicates = 0;              ///< the replicates' noise (NaN when unmeasured)
  /// The scatter between sizes as a share of the time beside a fixed time (between_size_noise_model).
  noise_model scatter;
  /// σ of ln T at each size, ascending: the larger of the scatter at its value and the replicates'
  /// noise (at least 0.2%). The evidence weighs each size's held-out errors by it.
  std::vector<double> size_noise;
  /// The classes not excluded, the chosen one left out: for a coarse answer the coarse ones; those
  /// the work excludes (below_work) are not among them.
  std::vector<std::size_t> rivals;
  /// The classes the data leave but the work excludes (judged_class::below_work), in the same order.
  std::vector<std::size_t> below_work;
  /// Whether the classes were judged with up to two steps up in cost (a coarse class with steps
  /// predicted the held-out sizes step_gain times better than every class without).
  bool stepped = false;
  /// Whether they were judged with a lower-order term beside each (one so fitted predicted them
  /// two_term_gain times better than every class without).
  bool two_term = false;
  /// Set when the work chose the answer: the class chosen without it (`classes[*by_work]`) grows
  /// slower than the work the variant must do, and the answer is the class nearest the work's
  /// growth that the data do not exclude against it. That class is then excluded by the work
  /// (below_work), not by the data; the answer is firm when the data exclude every faster class.
  std::optional<std::size_t> by_work;
  /// How the data's log-log slope departs from the answer's, upper half of the sizes against lower
  /// half, with its standard error: a growth that steepens along the range (an asymptote not yet
  /// reached) or flattens (a saturation) beyond the noise. Not computed with fewer than 8 sizes.
  double bend = 0, bend_se = 0;
  /// How the data's slope over the largest `top_sizes` sizes departs from the answer's there, with
  /// its standard error, of the windows from the 3 largest to a quarter of the sizes (at least 4) the
  /// one that departs most in standard errors: a cost still steepening at the top (a GPU kernel
  /// leaving its latency-bound start, a parallel sort reaching its n log n) has not shown its class.
  double top_bend = 0, top_bend_se = 0;
  std::size_t top_sizes = 0;
  /// Set where the answer is coarse and a finer class of the lattice growing slower than it (and
  /// not slower than the work, where the answer is not) excludes it (the answer's
  /// held-out errors exceed that class's by more than the noise explains, with any one size left
  /// out too) without cutting the coarse classes' error fine_gain times: the data lie between two
  /// coarse classes (a cost per element still creeping as the data outgrow a cache or the TLB), and
  /// the coarse class chosen describes them no better than its neighbour would. Never firm.
  std::optional<std::size_t> finer;
  const judged_class& answer() const { return classes.at(chosen); }
  bool firm() const { return rivals.empty() && !finer; }
};

/// Whether the data steepen over the largest sizes against the answer's slope there beyond the
/// noise (top_bend above 0.1 and 3 standard errors).
/// Whether the set judged `c` and excluded it.
inline bool excludes(const class_set& s, const theta_class& c) {
  return std::any_of(s.classes.begin(), s.classes.end(), [&](const judged_class& j) { return j.cls == c && j.excluded; });
}

/// Whether the slope of ln T steepens or flattens against the answer's along the range, beyond its noise.
inline bool bends(const class_set& s) { return std::abs(s.bend) > std::max(0.1, 3 * s.bend_se); }
inline bool steepens_at_top(const class_set& s) { return s.top_sizes && s.top_bend > std::max(0.1, 3 * s.top_bend_se); }

/// σ of ln T between neighbouring sizes: each interior size against the line through its two
/// neighbours in log-log space (`semilog`: against n itself, where an exponential is a line),
/// scaled by that difference's variance (Rice's estimator for uneven spacing). NaN with fewer than
/// 3 sizes.
double between_size_noise(const series& data, bool semilog = false);

/// The noise model of a series' scatter between neighbouring sizes (as between_size_noise), by
/// maximum likelihood: the second difference at each interior size is normal with the variance its
/// three sizes' σ give it. The fixed part is used only where it raises the likelihood by more than
/// chance would (twice the log-likelihood by 6 or more) and from 6 interior sizes; otherwise the
/// model is relative alone, equal to between_size_noise. Nullopt with fewer than 3 sizes.
std::optional<noise_model> between_size_noise_model(const series& means);

/// A size whose measurement lies off both its neighbours (a disturbance, not the cost's growth).
struct off_size {
  double n = 0;
  double departure = 0;  ///< its mean over what its neighbours interpolate (log-log), less 1: +0.4 is 40% slow
};

/// The sizes that lie off both neighbours: the size's departure from the line through its
/// neighbours (log-log) is at least 25% and 5 times the typical (median) departure of the series,
/// and both neighbours depart the other way, each by a quarter of it or more, as one displaced size
/// makes them do (by about half). A step in cost between two sizes moves the pair beside it the two
/// ways by as much each and the sizes beyond the pair far less: a size with a neighbour departing
/// the other way by three quarters of it or more, the sizes beyond the two within half of it, is
/// beside a step (a cache's edge), not disturbed, and is not named; a bend moves all alike. The
/// first and last sizes have one neighbour and are never named.
std::vector<off_size> off_neighbours(const series& data);

/// The growth exponent of f from lo to hi, ln f(hi)/f(lo) over ln(hi/lo): NaN where f is not
/// positive at both or refuses a size (a problem's work model may throw for parameters it does not
/// take).
double growth_exponent(const std::function<double(double)>& f, double lo, double hi);

/// The classes a reader names first (exponent of n, of log n): the coarse classes the answer is
/// chosen among first (and the scaling fit's W and D, analysis/scaling.hpp).
inline constexpr std::pair<double, double> coarse_classes[] = {{0, 0}, {0, 1}, {0.5, 0}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0}, {4, 0}};

/// The growth exponent of a polynomial class n^a log^b n from lo to hi (both above 1).
double class_growth(const theta_class& c, double lo, double hi);

/// How fast the fastest of `work` grows from lo to hi, as an exponent of n; -inf where none is known
/// or lo is below 2.
double work_growth(const std::vector<std::function<double(double)>>& work, double lo, double hi);

/// Judges the lattice's classes on a regime. `replicate_noise` is the relative standard error of a
/// size's value measured within it (NaN: unmeasured). Nullopt when fewer than 4 sizes or no class
/// can be fitted.
std::optional<class_set> weigh_classes(const series& regime, double replicate_noise, const class_set_options& options = {});

}  // namespace ema::fit
