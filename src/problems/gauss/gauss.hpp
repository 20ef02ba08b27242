// Problem `gauss`: solve Ax = b, n equations, by Gaussian elimination. Source: sections 3 and 4 of
// Zudio et al., 003_7e2665a3d38c50fb.txt ("Análise de Complexidade do Método de Eliminação Gaussiana em GPU
// Através da Ferramenta EMA": Algorithms 1 and 2, Codes 3.1 to 3.3, Tables 1 to 3).
//
// The input is the source's augmented matrix M = [A|b], n rows of n + 1 values, row-major, in one
// allocation (the source passes it to the device as one array with one cudaMemcpy), in float (the
// source's type) or double. The same bytes read column-major with leading dimension n + 1 are A^T
// followed by b as its last "column": the cuBLAS/cuSOLVER variants factor that view and solve
// with the transpose, so no variant rearranges the input before timing starts.
//
// Every run is verified by the scaled residual ||Ax - b||_inf / (||A||_inf ||x||_inf n eps),
// computed in double from the input (never by comparing x, which is ill-conditioned in float).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "measure/host_array.hpp"

namespace ema::gauss {

/// The kind of A: diagonally dominant dense or sparse (every variant), or general (pivoting only).
enum class matrix_kind { dense, sparse, general };

/// The parameters, parsed once (problem.cpp).
struct settings {
  matrix_kind matrix = matrix_kind::dense;
  double density = 0.01;  ///< off-diagonal fraction present, matrix_kind::sparse
  bool f64 = false;       ///< type=f64
  std::string file;       ///< A from this Matrix Market file, or ""
  static settings of(const param_set& p);
};

/// The working type's machine epsilon.
inline double input_epsilon(bool f64) { return f64 ? 0x1.0p-52 : 0x1.0p-23; }

/// What the input's rows are known to be: the non-pivoting variants are valid only for
/// diagonally dominant systems.
struct input {
  std::size_t n = 0;
  bool f64 = false;
  host_array<float> m32;   ///< [A|b] row-major, n x (n + 1), when !f64
  host_array<double> m64;  ///< the same when f64
  bool dominant = false;   ///< every row strictly diagonally dominant (checked, not assumed)
  std::string origin;      ///< "dense", "sparse", "general" or the file's path

  template <class T>
  const T* augmented() const;
  /// Element (i, j) of [A|b] in double, j == n is b.
  double at(std::size_t i, std::size_t j) const {
    const std::size_t k = i * (n + 1) + j;
    return f64 ? m64[k] : static_cast<double>(m32[k]);
  }
};

template <>
inline const float* input::augmented<float>() const {
  return m32.data();
}
template <>
inline const double* input::augmented<double>() const {
  return m64.data();
}

/// A variant's answer: the solution, or the step at which it met a zero pivot.
struct output {
  enum class state { solved, singular };
  state status = state::solved;
  std::vector<double> x;   ///< the solution in the working precision, widened (exact)
  std::int64_t step = -1;  ///< singular: the elimination step (0-based) with a zero pivot
};

/// Facts about the input the verifier needs, computed once per point from A alone.
struct reference_facts {
  double norm_inf = 0;  ///< ||A||_inf in double
};

/// The residual bound: LAPACK's test threshold for ||b - Ax|| / (n ||A|| ||x|| eps).
constexpr double residual_bound = 30.0;

struct traits {
  static constexpr const char* name = "gauss";
  using input = gauss::input;
  using output = gauss::output;
  static input generate(const point_request& request);
  static reference_facts reference(const input& in);
  static outcome check(const input& in, const reference_facts& facts, const output& got);
};

/// The scaled residual of x, in double; +inf when x is not finite or has the wrong size.
double scaled_residual(const input& in, double norm_inf, const std::vector<double>& x);

/// The independent reference for a "singular" claim: Gaussian elimination with partial pivoting
/// in double on a copy of A. Returns the first step whose best pivot is at most `tolerance`
/// (relative to ||A||_inf), or -1 when every pivot is above it. O(n^3): used only to check a claim.
std::int64_t reference_singular_step(const input& in, double norm_inf, double tolerance);

/// Why a non-pivoting variant does not apply to these parameters (nullptr: it applies).
const char* needs_dominance(const param_set& params, std::uint64_t n);

using kit = problem_kit<traits>;

/// Algorithm 2 of the source (SUBSTITUIÇÃO, lines 3-7), timed as `stage2`: back substitution on the
/// upper triangle of the eliminated n x (n + 1) row-major [U|c], one thread. Returns the solution.
template <class T>
std::vector<double> back_substitution(const T* M, std::size_t n, run_context& ctx) {
  const std::size_t n1 = n + 1;
  std::vector<T> x(n);
  {
    host_phase p(ctx, "stage2");
    for (std::size_t i = n; i-- > 0;) {
      T xi = M[i * n1 + n];
      for (std::size_t j = n - 1; j > i; --j) xi -= M[i * n1 + j] * x[j];
      x[i] = xi / M[i * n1 + i];
    }
  }
  return {x.begin(), x.end()};
}

/// Dispatches a variant templated on the element type to the input's type.
template <template <class> class Solver>
output solve_typed(const input& in, run_context& ctx) {
  return in.f64 ? Solver<double>::run(in, ctx) : Solver<float>::run(in, ctx);
}

}  // namespace ema::gauss
