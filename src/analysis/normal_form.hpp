// The performance model normal form in n and p (issue 32, item 2), after Extra-P's multi-parameter
// modeller (Calotoiu et al., "Fast multi-parameter performance modeling", IEEE Cluster 2016):
//
//     T(n, p) = c0 + Σ_k c_k · n^a_k · log2(n)^b_k · p^c_k · log2(p)^d_k,     one or two terms,
//
// Extra-P finds it by a heuristic: the best few single-parameter terms of each parameter, each
// along one line of the measurements, then their products and sums. That misses a cost whose line
// at the smallest count is a sum of two classes (a work and a span: the best single term of n there
// is neither). Here every hypothesis is tried instead — c0 + c1·f(n)g(p), c0 + c1·f(n)g(p) +
// c2·f'(n) (a work and a span), c0 + c1·f(n)g(p) + c2·g'(p) (a cost of the processors), c0 + c1·f(n)
// + c2·g(p) — over Extra-P's exponents of n (0 to 3 in quarters and thirds, log powers 0 to 2) and
// p's with -1 and -1/2 added (a time that divides among the processors: strong scaling needs them,
// Extra-P's defaults have none), each fitted by least squares on relative error and judged by
// held-out prediction with each size left out with all its counts, as the work-span fit judges its
// pairs (analysis/scaling.hpp), so the two forms' errors compare. Unlike Extra-P, no coefficient
// may be negative (a cost is a sum of parts: a negative constant or term fits the measured range by
// cancelling, and predicts nothing past it). One term is kept where its held-out error is within a
// quarter of the best's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ema::fit {

struct scaling_series;

struct pmnf_term {
  double a = 0, b = 0;  ///< n^a · log2(n)^b
  double c = 0, d = 0;  ///< p^c · log2(p)^d
  double coef = 0;
  double value(double n, double p) const;  ///< without the coefficient
  std::string text() const;                ///< "n · p^-1", "log2(n)^2", "n^1.5 · log2(p)"
};

struct pmnf_model {
  double c0 = 0;
  std::vector<pmnf_term> terms;  ///< one or two
  double cv = 0;                 ///< mean squared held-out error of ln T, each size left out
  double operator()(double n, double p) const;
  std::string formula() const;  ///< "1.2e-05 + 3.4e-09 · n · p^-1 + 2.1e-10 · n"
};

struct normal_form {
  pmnf_model best;
  std::vector<pmnf_model> hypotheses;  ///< every one fitted, by held-out error ascending
};

/// Throws std::invalid_argument where no hypothesis can be fitted (fewer than 3 sizes or 2 counts).
normal_form fit_normal_form(const scaling_series& data);

nlohmann::json to_json(const pmnf_model& m);

}  // namespace ema::fit
