// Problem `stencil`'s verifier (Pires, 002_345fe0ce529d39b6.txt: T Jacobi steps of a 5-point stencil).
// The reference is computed once per input, in double, by a method that shares no code with the
// variants; every run's grid is then compared with it cell by cell. Contract, checked on every run:
//   1. the grid has n x n finite cells;
//   2. every cell is within `bound` of the reference, where, with L = |c0| + |cw| + |ce| + |cn| + |cs|
//      (the step's norm) and M = the largest initial magnitude,
//        bound = 2 (5.01 T eps + 5.01 T eps64 + 0.5 eps [closed form] + 16 eps64) L^T M,
//      eps the working type's unit roundoff: a step rounds 5 times (1 multiply, 4 fused
//      multiply-adds, each within eps of its exact value, on magnitudes at most L M_t), a rounding
//      error is amplified at most L-fold per step, and the reference rounds the same way in double;
//      the closed form adds the rounding of the initial grid to the working type. The factor 2 is
//      a margin; the observed error is typically below sqrt(T) eps M.
// The references:
//   - periodic boundaries with init=modes: the closed form. A Fourier mode e^{2 pi i (p r + q c) / n}
//     is an eigenvector of a periodic step, with eigenvalue (the stencil's symbol)
//       lambda = c0 + cw e^{-i tx} + ce e^{i tx} + cn e^{-i ty} + cs e^{i ty},  tx = 2 pi q / n, ty = 2 pi p / n,
//     so after T steps each mode is multiplied by lambda^T and the constant by (sum of the c)^T.
//     Costs O(n^2 modes) and one n x n grid of doubles, whatever T.
//   - otherwise: a plain two-buffer loop in double over T steps (the boundary rules written out
//     again, by index arithmetic, not with the variants' row kernel): O(n^2 T), parallel over rows.
// The result: sum, L2 norm, min and max of the grid (in double) and its values at five probe cells,
// with the check used, the largest error found and the bound.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>

#include "inputs/matrix_market.hpp"
#include "problems/stencil/stencil.hpp"

namespace ema::stencil {
namespace {

constexpr double eps64 = 0x1.0p-53;

template <class T>
expected_grid closed_form(const input& in, const coefficients<T>& cT) {
  const std::size_t n = in.n;
  const std::complex<double> c0 = cT.c0, cw = cT.w, ce = cT.e, cn = cT.n, cs = cT.s;
  const double two_pi_n = 2 * std::numbers::pi / static_cast<double>(n);
  auto power = [steps = in.s.steps](std::complex<double> z) {  // z^T by squaring
    std::complex<double> r = 1;
    for (std::uint64_t e = steps; e; e >>= 1, z *= z)
      if (e & 1) r *= z;
    return r;
  };
  std::vector<std::complex<double>> amplitude;
  for (const auto& m : in.modes) {
    const double tx = two_pi_n * static_cast<double>(m.q), ty = two_pi_n * static_cast<double>(m.p);
    const auto lambda = c0 + cw * std::polar(1.0, -tx) + ce * std::polar(1.0, tx) + cn * std::polar(1.0, -ty) + cs * std::polar(1.0, ty);
    amplitude.push_back(std::polar(m.a, m.phi) * power(lambda));
  }
  const double constant = in.mean * power(c0 + cw + ce + cn + cs).real();
  std::vector<std::complex<double>> root(n);  // e^{2 pi i k / n}, k exact
  for (std::size_t k = 0; k < n; ++k) root[k] = std::polar(1.0, two_pi_n * static_cast<double>(k));
  expected_grid r;
  r.grid.resize(n * n);
  const auto rows = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t ii = 0; ii < rows; ++ii) {
    const auto i = static_cast<std::size_t>(ii);
    for (std::size_t j = 0; j < n; ++j) {
      double v = constant;
      for (std::size_t m = 0; m < in.modes.size(); ++m) v += (amplitude[m] * root[mode_phase(in.modes[m], n, i, j)]).real();
      r.grid[i * n + j] = v;
    }
  }
  r.method = "closed form";
  return r;
}

template <class T>
expected_grid two_buffer(const input& in, const coefficients<T>& cT) {
  const std::size_t n = in.n;
  const double c0 = cT.c0, cw = cT.w, ce = cT.e, cn = cT.n, cs = cT.s;
  const bool fixed = in.s.boundary == boundary_kind::fixed;
  const T* g = in.grid<T>();
  std::vector<double> a(g, g + n * n), b(n * n);
  const auto rows = static_cast<std::int64_t>(n);
  for (std::uint64_t t = 0; t < in.s.steps; ++t) {
#pragma omp parallel for schedule(static)
    for (std::int64_t ii = 0; ii < rows; ++ii) {
      const auto i = static_cast<std::size_t>(ii);
      for (std::size_t j = 0; j < n; ++j) {
        const bool edge = i == 0 || j == 0 || i == n - 1 || j == n - 1;
        if (fixed && edge) {
          b[i * n + j] = a[i * n + j];
          continue;
        }
        const std::size_t north = (i + n - 1) % n, south = (i + 1) % n, west = (j + n - 1) % n, east = (j + 1) % n;
        b[i * n + j] = c0 * a[i * n + j] + cw * a[i * n + west] + ce * a[i * n + east] + cn * a[north * n + j] + cs * a[south * n + j];
      }
    }
    a.swap(b);
  }
  expected_grid r;
  r.grid = std::move(a);
  r.method = "two-buffer reference in double";
  return r;
}

template <class T>
expected_grid reference_of(const input& in, bool closed) {
  const auto c = in.s.weights<T>();
  expected_grid r = closed ? closed_form(in, c) : two_buffer(in, c);
  const T* g = in.grid<T>();
  double largest = 0;
  for (std::size_t k = 0; k < in.cells(); ++k) largest = std::max(largest, std::abs(static_cast<double>(g[k])));
  if (closed) {
    double modes = std::abs(in.mean);
    for (const auto& m : in.modes) modes += m.a;
    largest = std::max(largest, modes);
  }
  const double L = std::abs(static_cast<double>(c.c0)) + std::abs(static_cast<double>(c.w)) + std::abs(static_cast<double>(c.e)) +
                   std::abs(static_cast<double>(c.n)) + std::abs(static_cast<double>(c.s));
  const double eps = std::numeric_limits<T>::epsilon() / 2, steps = static_cast<double>(in.s.steps);
  const double growth = std::pow(std::max(L, 1e-300), steps);
  r.bound = 2 * (5.01 * steps * eps + 5.01 * steps * eps64 + (closed ? 0.5 * eps : 0) + 16 * eps64) * std::max(growth, 1.0) * largest;
  return r;
}

// One row's share of the summary and the comparison; rows are combined in order, so the sums do
// not depend on the thread count.
struct row_facts {
  double sum = 0, l2 = 0, lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity(), worst = 0;
  std::size_t worst_at = 0, bad = SIZE_MAX, bad_ref = SIZE_MAX;
};

template <class T>
outcome check_typed(const input& in, const expected_grid& ref, const T* got) {
  outcome o;
  const std::size_t n = in.n, cells = in.cells();
  std::vector<row_facts> facts(n);
  const auto rows = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t ii = 0; ii < rows; ++ii) {
    auto& f = facts[static_cast<std::size_t>(ii)];
    for (std::size_t k = static_cast<std::size_t>(ii) * n, end = k + n; k < end; ++k) {
      const double v = got[k];
      if (!std::isfinite(v) && f.bad == SIZE_MAX) f.bad = k;
      if (!std::isfinite(ref.grid[k]) && f.bad_ref == SIZE_MAX) f.bad_ref = k;
      f.sum += v;
      f.l2 += v * v;
      f.lo = std::min(f.lo, v);
      f.hi = std::max(f.hi, v);
      if (const double e = std::abs(v - ref.grid[k]); e > f.worst) {
        f.worst = e;
        f.worst_at = k;
      }
    }
  }
  row_facts all;
  std::size_t bad = cells, bad_ref = cells;
  for (const auto& f : facts) {
    all.sum += f.sum;
    all.l2 += f.l2;
    all.lo = std::min(all.lo, f.lo);
    all.hi = std::max(all.hi, f.hi);
    if (f.worst > all.worst) {
      all.worst = f.worst;
      all.worst_at = f.worst_at;
    }
    if (f.bad != SIZE_MAX) bad = std::min(bad, f.bad);
    if (f.bad_ref != SIZE_MAX) bad_ref = std::min(bad_ref, f.bad_ref);
  }
  const double sum = all.sum, l2 = all.l2, lo = all.lo, hi = all.hi, worst = all.worst;
  const std::size_t worst_at = all.worst_at;
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& [i, j] : {std::pair{std::size_t{0}, std::size_t{0}}, std::pair{n / 2, n / 2}, std::pair{n - 1, n - 1}, std::pair{n / 3, 2 * n / 3},
                             std::pair{2 * n / 3, n / 7}})
    probes.push_back({{"i", i}, {"j", j}, {"value", static_cast<double>(got[i * n + j])}});
  o.result_json = nlohmann::json{{"sum", sum},       {"l2", std::sqrt(l2)}, {"min", lo},          {"max", hi},
                                 {"probes", probes}, {"check", ref.method}, {"max_error", worst}, {"bound", ref.bound}}
                      .dump();
  if (bad_ref != cells) {
    o.reason = fmt::format(
        "the reference overflows at cell ({}, {}) after {} steps (the weights' sum of magnitudes exceeds 1): no "
        "answer can be verified",
        bad_ref / n, bad_ref % n, in.s.steps);
  } else if (bad != cells) {
    o.reason = fmt::format("cell ({}, {}) is {}", bad / n, bad % n, static_cast<double>(got[bad]));
  } else if (!(worst <= ref.bound)) {
    o.reason = fmt::format("cell ({}, {}) is {} but the {} gives {}: off by {:.3g}, beyond the rounding bound {:.3g}", worst_at / n, worst_at % n,
                           static_cast<double>(got[worst_at]), ref.method, ref.grid[worst_at], worst, ref.bound);
  } else {
    o.verified = true;
  }
  return o;
}

}  // namespace

expected_grid reference_closed_form(const input& in) { return in.s.f64 ? reference_of<double>(in, true) : reference_of<float>(in, true); }

expected_grid reference_by_steps(const input& in) { return in.s.f64 ? reference_of<double>(in, false) : reference_of<float>(in, false); }

expected_grid traits::reference(const input& in) {
  const bool closed = in.s.boundary == boundary_kind::periodic && in.s.init == init_kind::modes;
  return closed ? reference_closed_form(in) : reference_by_steps(in);
}

outcome traits::check(const input& in, const expected_grid& expected, const output& got) {
  if (!got.cells) {
    outcome o;
    o.reason = "returned no grid";
    return o;
  }
  // The first run at each n writes the file; later ones find it there (every variant's grid is
  // the same bit for bit) and leave it: the plan refused a file that existed before.
  if (!in.s.dump.empty() && !in.dumped) {
    in.dumped = true;
    const auto path = dump_path(in.s.dump, in.n);
    if (in.s.f64)
      write_matrix_market(path, in.n, in.n, static_cast<const double*>(got.cells));
    else
      write_matrix_market(path, in.n, in.n, static_cast<const float*>(got.cells));
  }
  return in.s.f64 ? check_typed(in, expected, static_cast<const double*>(got.cells))
                  : check_typed(in, expected, static_cast<const float*>(got.cells));
}

}  // namespace ema::stencil
