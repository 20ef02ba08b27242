// Problem `gauss`'s verifier (Zudio et al., 003_7e2665a3d38c50fb.txt: Ax = b by Gaussian elimination). Nothing
// compares x itself, which is ill-conditioned in float; the references are computed in double from
// the input. Contract, checked on every run:
//   1. solved: n finite unknowns whose scaled residual ||Ax - b||_inf / (||A||_inf ||x||_inf n eps)
//      is at most 30 (LAPACK's test threshold for this ratio), eps the working type's epsilon;
//   2. singular: believed only when Gaussian elimination with partial pivoting in double meets a
//      pivot at most n eps ||A||_inf too (reference_singular_step).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <limits>
#include <vector>

#include "problems/gauss/gauss.hpp"

namespace ema::gauss {

reference_facts traits::reference(const input& in) {
  reference_facts f;
  for (std::size_t i = 0; i < in.n; ++i) {
    double row = 0;
    for (std::size_t j = 0; j < in.n; ++j) row += std::abs(in.at(i, j));
    f.norm_inf = std::max(f.norm_inf, row);
  }
  return f;
}

double scaled_residual(const input& in, double norm_inf, const std::vector<double>& x) {
  const double inf = std::numeric_limits<double>::infinity();
  if (x.size() != in.n) return inf;
  double x_norm = 0;
  for (double v : x) {
    if (!std::isfinite(v)) return inf;
    x_norm = std::max(x_norm, std::abs(v));
  }
  double r_norm = 0;
  const auto rows = static_cast<std::int64_t>(in.n);
#pragma omp parallel for reduction(max : r_norm) schedule(static)
  for (std::int64_t ii = 0; ii < rows; ++ii) {
    const auto i = static_cast<std::size_t>(ii);
    double s = -in.at(i, in.n);
    for (std::size_t j = 0; j < in.n; ++j) s += in.at(i, j) * x[j];
    r_norm = std::max(r_norm, std::abs(s));
  }
  if (r_norm == 0) return 0;
  const double scale = norm_inf * x_norm * static_cast<double>(in.n) * input_epsilon(in.f64);
  return scale > 0 ? r_norm / scale : inf;
}

std::int64_t reference_singular_step(const input& in, double norm_inf, double tolerance) {
  const std::size_t n = in.n;
  std::vector<double> a(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) a[i * n + j] = in.at(i, j);
  const double floor = tolerance * norm_inf;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > std::abs(a[p * n + k])) p = i;
    if (!(std::abs(a[p * n + k]) > floor)) return static_cast<std::int64_t>(k);
    if (p != k)
      std::swap_ranges(a.begin() + static_cast<std::ptrdiff_t>(k * n), a.begin() + static_cast<std::ptrdiff_t>(k * n + n),
                       a.begin() + static_cast<std::ptrdiff_t>(p * n));
    const auto rows = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) if (n > 256)
    for (std::int64_t ii = static_cast<std::int64_t>(k) + 1; ii < rows; ++ii) {
      const auto i = static_cast<std::size_t>(ii);
      const double f = a[i * n + k] / a[k * n + k];
      if (f != 0)
        for (std::size_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return -1;
}

outcome traits::check(const input& in, const reference_facts& facts, const output& got) {
  outcome o;
  if (!std::isfinite(facts.norm_inf)) {  // never reached from generate, which refuses such input
    o.reason = "A holds a value that is not finite: no answer can be verified on it";
    return o;
  }
  const char* hint = in.dominant ? "" : " (the matrix is not diagonally dominant: a variant that does not pivot may fail on it)";
  if (got.status == output::state::singular) {
    o.result_json = fmt::format(R"({{"status":"singular","step":{}}})", got.step);
    const double tolerance = static_cast<double>(in.n) * input_epsilon(in.f64);
    const auto step = reference_singular_step(in, facts.norm_inf, tolerance);
    if (step >= 0) {
      o.verified = true;
    } else {
      o.reason = fmt::format(
          "reported a zero pivot at step {}, but elimination with partial pivoting in double finds "
          "every pivot above n eps ||A|| = {:.3g}: the matrix is not singular{}",
          got.step, tolerance * facts.norm_inf, hint);
    }
    return o;
  }
  const double r = scaled_residual(in, facts.norm_inf, got.x);
  // nlohmann writes a double so that it reads back the same, and a non-finite one as null.
  o.result_json = nlohmann::json{{"status", "solved"}, {"scaled_residual", r}}.dump();
  if (got.x.size() != in.n) {
    o.reason = fmt::format("returned {} unknowns for {} equations", got.x.size(), in.n);
  } else if (auto bad = std::find_if(got.x.begin(), got.x.end(), [](double v) { return !std::isfinite(v); }); bad != got.x.end()) {
    o.reason = fmt::format("x[{}] is {}{}", bad - got.x.begin(), *bad, hint);
  } else if (!(r <= residual_bound)) {
    o.reason = fmt::format("scaled residual ||Ax - b|| / (||A|| ||x|| n eps) = {:.4g} exceeds the bound {}{}", r, residual_bound, hint);
  } else {
    o.verified = true;
  }
  return o;
}

}  // namespace ema::gauss
