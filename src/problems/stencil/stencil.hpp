// Problem `stencil`: T time steps of a 5-point stencil on an n x n grid, the time-iterated
// centred-difference stencil of Pires, 002_345fe0ce529d39b6.txt ("Paralelismo em GPU's para cálculo de
// estêncil de diferenças centradas em função do tempo": section I and Figure 1, the problem;
// section III and Code 1, several time steps per load of a tile into shared memory; its open
// question, how many steps per load are best, is the tuning parameter k).
//
// One step is Jacobi: every cell of step t + 1 from the cells of step t,
//   u'(i, j) = c0 u(i, j) + cw u(i, j - 1) + ce u(i, j + 1) + cn u(i - 1, j) + cs u(i + 1, j),
// row i, column j, north is row i - 1, west is column j - 1. Boundaries are periodic (indices mod n)
// or fixed (the cells of the first and last row and column keep their initial values).
//
// Every variant evaluates a cell with the same chain of fused multiply-adds (cell_update below),
// and every cell of step t + 1 depends only on step t, so the order in which cells, tiles and time
// blocks are computed changes nothing: all variants, CPU and GPU, produce the same grid bit for
// bit. The verifier checks that grid against an independent reference (verify.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_device.hpp"
#include "core/problem.hpp"
#include "measure/host_array.hpp"

namespace ema::stencil {

enum class boundary_kind { periodic, fixed };
enum class init_kind { modes, random, file };

/// The weights of one step, in the working type.
template <class T>
struct coefficients {
  T c0, w, e, n, s;
};

/// a * b + c rounded once, in the working type, on the host and the device alike.
EMA_HD inline float fused(float a, float b, float c) { return fmaf(a, b, c); }
EMA_HD inline double fused(double a, double b, double c) { return fma(a, b, c); }

/// One cell of the next step: c0 u + cw west + ce east + cn north + cs south as a chain of fused
/// multiply-adds in that order (the one definition every variant uses).
template <class T>
EMA_HD inline T cell_update(const coefficients<T>& c, T centre, T west, T east, T north, T south) {
  return fused(c.s, south, fused(c.n, north, fused(c.e, east, fused(c.w, west, c.c0 * centre))));
}

/// The parameters, parsed once (problem.cpp).
struct settings {
  bool f64 = false;
  std::uint64_t steps = 100;
  int k = 0;  ///< steps per load (tuning; 0: each variant chooses)
  double c0 = 0.6, cw = 0.1, ce = 0.1, cn = 0.1, cs = 0.1;
  boundary_kind boundary = boundary_kind::periodic;
  init_kind init = init_kind::modes;
  std::string input;  ///< the initial grid from this Matrix Market file, or ""
  std::string dump;   ///< write the final grid to this Matrix Market file, or ""
  static settings of(const param_set& p);

  /// The weights rounded to the working type.
  template <class T>
  coefficients<T> weights() const {
    return {static_cast<T>(c0), static_cast<T>(cw), static_cast<T>(ce), static_cast<T>(cn), static_cast<T>(cs)};
  }
  /// The largest k a variant takes.
  static constexpr int max_k = 16;
};

/// One Fourier mode of init=modes: amplitude a, phase phi, wave numbers p (rows) and q (columns);
/// the cell (i, j) holds a cos(2 pi (p i + q j) / n + phi).
struct mode {
  double a = 0, phi = 0;
  std::int64_t p = 0, q = 0;
};

/// (p i + q j) mod n, exactly (p and q taken mod n).
std::uint64_t mode_phase(const mode& m, std::size_t n, std::size_t i, std::size_t j);

struct input {
  std::size_t n = 0;
  settings s;
  host_array<float> g32;        ///< the initial grid, row-major n x n, when !s.f64
  host_array<double> g64;       ///< the same when s.f64
  double mean = 0;              ///< init=modes: the constant added to the modes
  std::vector<mode> modes;      ///< init=modes
  std::string origin;           ///< "modes", "random" or the file's path
  mutable bool dumped = false;  ///< dump=: tried by this point's first run

  template <class T>
  const T* grid() const;
  std::size_t cells() const { return n * n; }
};

template <>
inline const float* input::grid<float>() const {
  return g32.data();
}
template <>
inline const double* input::grid<double>() const {
  return g64.data();
}

/// A variant's answer: the final grid, row-major n x n in the input's type, either owned here (CPU
/// variants) or in a GPU session's page-locked results region (valid until the next run).
struct output {
  host_array<float> own32;
  host_array<double> own64;
  const void* cells = nullptr;
};

/// What the verifier compares with: the final grid by an independent method, in double, and the
/// bound on the distance any correct run may be from it.
struct expected_grid {
  std::vector<double> grid;
  double bound = 0;
  std::string method;  ///< "closed form" or "two-buffer reference in double"
};

struct traits {
  static constexpr const char* name = "stencil";
  using input = stencil::input;
  using output = stencil::output;
  static input generate(const point_request& request);
  static expected_grid reference(const input& in);
  static outcome check(const input& in, const expected_grid& expected, const output& got);
};

using kit = problem_kit<traits>;

/// The verifier's two references on their own (verify.cpp), whatever the input's boundary and
/// initial grid: the closed form (meaningful for periodic boundaries and init=modes only) and the
/// plain steps in double; each with the rounding bound of its method.
expected_grid reference_closed_form(const input& in);
expected_grid reference_by_steps(const input& in);

/// The file dump= names for a grid of side n: the parameter with "{n}" replaced by n.
std::string dump_path(const std::string& pattern, std::uint64_t n);

/// The tuning parameter of the variants that take k (variant_desc::tuning).
inline constexpr const char* k_tuning[] = {"k"};

/// The steps per load a variant runs with: the parameter k, or `chosen` when it is 0 (the
/// variant's own choice); never more than the steps to run (at least 1).
int steps_per_load(const settings& s, int chosen);

/// Runs `steps` time steps as passes of k (the last pass the remainder): calls pass(kk) with each
/// pass's steps in order; returns how many passes ran.
template <class Pass>
std::uint64_t for_each_pass(std::uint64_t steps, int k, Pass&& pass) {
  std::uint64_t passes = 0;
  for (std::uint64_t done = 0; done < steps; ++passes) {
    const auto kk = std::min<std::uint64_t>(static_cast<std::uint64_t>(k), steps - done);
    pass(static_cast<int>(kk));
    done += kk;
  }
  return passes;
}

/// The next cell index along a periodic or fixed axis of length n (the caller keeps fixed edges).
inline std::size_t wrap_prev(std::size_t i, std::size_t n) { return i == 0 ? n - 1 : i - 1; }
inline std::size_t wrap_next(std::size_t i, std::size_t n) { return i + 1 == n ? 0 : i + 1; }

/// Dispatches a variant templated on the element type to the input's type.
template <template <class> class Variant>
output run_typed(const input& in, run_context& ctx) {
  return in.s.f64 ? Variant<double>::run(in, ctx) : Variant<float>::run(in, ctx);
}

/// Wraps a grid owned by the variant as its output.
inline output owned(host_array<float>&& g) {
  output o;
  o.own32 = std::move(g);
  o.cells = o.own32.data();
  return o;
}
inline output owned(host_array<double>&& g) {
  output o;
  o.own64 = std::move(g);
  o.cells = o.own64.data();
  return o;
}

}  // namespace ema::stencil
