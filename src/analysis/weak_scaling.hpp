// Weak scaling (issue 32, item 3): the size grows with the processors so that each processor's
// share of the work stays the same (`ema run --weak n0 --threads 1..16`: at p processors the size
// with p/p0 times the work, runner/plan.hpp weak_size), and the question is whether the time
// stays flat. The source on parallel search (001_9fea77a744af8951.txt, section 1) judges a parallel
// algorithm by its efficiency and cost after Grama et al.; their scaled speedup (Gustafson's law)
// is the weak-scaling reading of the same numbers:
//
//     E_w(p) = (W(n_p) / W(n_0)) / (p / p0) · T(n_0, p0) / T(n_p, p),     S_w(p) = (p / p0) · E_w(p)
//
// W the problem's work model (its operations): where the sizes are integers and the work ratio is
// not exactly p/p0, the first factor corrects for it (1 where it is). E_w = 1 is perfect weak
// scaling; what E_w loses is the cost of more processors at the same share each (communication,
// a shared bus, a reduction across p). The time's growth in p at a fixed share is fitted as a class
// (Θ(1) ideal, Θ(log p) a tree of p, Θ(√p), Θ(p) a serial part that grows with the whole), chosen
// by held-out prediction with each count left out in turn, the simpler class kept unless the other
// cuts the held-out error by more than the noise explains.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/equation.hpp"

namespace ema::fit {

struct weak_point {
  double p = 0, n = 0, value = 0;  ///< a replicate at the same p is another point
};

struct weak_row {
  double p = 0, n = 0;
  double measured = 0;        ///< the median of the replicates
  double work_ratio = 1;      ///< W(n_p) / W(n_0)
  double efficiency = 0;      ///< E_w, against the smallest count
  double scaled_speedup = 0;  ///< S_w = (p / p0) · E_w
};

struct weak_growth {
  theta_class growth;   ///< of T in p at a fixed share (written in p)
  double a = 0, b = 0;  ///< T(p) = a + b · g(p)
  double cv = 0;        ///< mean squared held-out error of ln T
  bool excluded = false;
};

struct weak_analysis {
  double n0 = 0, base_p = 1;
  std::vector<weak_row> rows;  ///< ascending in p
  /// Every class of T in p tried, by held-out error ascending; the first is the answer.
  std::vector<weak_growth> growths;
  /// The classes the held-out errors do not exclude beside the answer (p_text); firm when none.
  std::vector<std::string> rivals;
  double noise = 0;  ///< σ of ln T at a point used for the exclusion
  std::vector<std::string> notes;
  const weak_growth& answer() const { return growths.front(); }
};

/// Analyses one weak-scaling series: points at two or more counts, each count at its own size.
/// `work` is the problem's work at n (nullptr: n itself); `noise` the relative standard error of a
/// point measured elsewhere (NaN: the replicates alone). Throws std::invalid_argument for fewer than
/// 2 counts, a value that is not positive, or a count measured at two sizes.
weak_analysis analyze_weak(const std::vector<weak_point>& points, const std::function<double(double)>& work, double noise);

/// The rows and the growth, for the terminal; times in `unit` ("s": durations).
std::string weak_text(const weak_analysis& a, const std::string& unit = "s");
nlohmann::json to_json(const weak_analysis& a);

}  // namespace ema::fit
