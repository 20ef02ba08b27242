// Problem `gauss` (Zudio et al., 003_7e2665a3d38c50fb.txt, sections 3 and 4): the parameters (parsed once into
// `settings`), the input generator, the work model and the registration; the verifier is in
// verify.cpp.
//
// Inputs (section 4 uses two sets, sparse and dense matrices of order n): every row of A is made
// strictly diagonally dominant by default, since the source's algorithms do not pivot; entries off
// the diagonal are uniform in [-1, 1] (dense) or present with probability `density` (sparse),
// the diagonal is +-(sum of the row's magnitudes + 1 + u), u uniform in [0, 1). `matrix=general`
// draws every entry of A uniform in [-1, 1], valid only for the pivoting variants. `file=PATH`
// reads A from a Matrix Market file instead (n must be its order). b is uniform in [-1, 1].
// Element (i, j) is a pure function of (seed, i, j).
//
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <type_traits>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/matrix_market.hpp"
#include "inputs/random.hpp"
#include "problems/gauss/gauss.hpp"

namespace ema::gauss {
namespace {

constexpr std::uint64_t rhs_stream = 0x726873;        // "rhs"
constexpr std::uint64_t pattern_stream = 0x70617474;  // "patt"
constexpr std::uint64_t sign_stream = 0x7369676e;     // "sign"

constexpr param_spec params[] = {
    {"matrix", param_kind::choice, "dense", "dense or sparse (diagonally dominant, for every variant), or general (random, pivoting variants only)",
     "dense|sparse|general"},
    {"density", param_kind::real, "0.01", "fraction of off-diagonal entries present with matrix=sparse"},
    {"type", param_kind::choice, "f32", "element type: f32 (the source's float) or f64", "f32|f64"},
    {"file", param_kind::path, "", "read A from this Matrix Market file (n must be its order); b is generated"},
};

// Around the 16 x 16 thread blocks and the 64-thread blocks of the CUDA kernels; dense and sparse
// in both types for every variant, general matrices for those that pivot (the others decline).
constexpr std::uint64_t test_sizes[] = {1, 2, 3, 15, 16, 17, 63, 64, 65, 200};
constexpr const char* test_params[] = {
    "matrix=dense,type=f32",   "matrix=dense,type=f64",  "matrix=sparse,type=f32,density=0.05", "matrix=sparse,type=f64,density=0.05",
    "matrix=general,type=f32", "matrix=general,type=f64"};
constexpr const char* answer_fields[] = {"status"};

/// Uniform in [-1, 1) from one 64-bit draw.
double uniform_pm1(std::uint64_t r) { return static_cast<double>(r >> 11) * 0x1.0p-52 - 1.0; }

template <class T>
void fill(input& in, const dense_matrix* file, matrix_kind matrix, double density, std::uint64_t seed) {
  const std::size_t n = in.n, n1 = n + 1;
  host_array<T>& m = [&]() -> host_array<T>& {
    if constexpr (std::is_same_v<T, float>)
      return in.m32;
    else
      return in.m64;
  }();
  const bool general = matrix == matrix_kind::general, sparse = matrix == matrix_kind::sparse;
  const auto rows = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t ii = 0; ii < rows; ++ii) {
    const auto i = static_cast<std::size_t>(ii);
    T* row = m.data() + i * n1;
    row[n] = static_cast<T>(uniform_pm1(random_at(seed ^ rhs_stream, i)));
    if (file) {
      for (std::size_t j = 0; j < n; ++j) row[j] = static_cast<T>(file->at(i, j));
      continue;
    }
    double magnitude = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t k = i * n + j;
      T v = 0;
      if (general || (j != i && (!sparse || static_cast<double>(random_at(seed ^ pattern_stream, k) >> 11) * 0x1.0p-53 < density)))
        v = static_cast<T>(uniform_pm1(random_at(seed, k)));
      row[j] = v;
      if (j != i) magnitude += std::abs(static_cast<double>(v));
    }
    if (!general) {
      const double u = (uniform_pm1(random_at(seed ^ sign_stream, i)) + 1) / 2;
      const double sign = random_at(seed ^ sign_stream, i) & 1 ? -1.0 : 1.0;
      row[i] = static_cast<T>(sign * (magnitude + 1 + u));
    }
  }
}

bool rows_dominant(const input& in) {
  for (std::size_t i = 0; i < in.n; ++i) {
    double off = 0;
    for (std::size_t j = 0; j < in.n; ++j)
      if (j != i) off += std::abs(in.at(i, j));
    if (!(std::abs(in.at(i, i)) > off)) return false;
  }
  return true;
}

work_model work(std::uint64_t n, const param_set& p) {
  // Elimination (2/3 n^3 + the right-hand side) and substitution (n^2) flops; the matrix is read
  // at least once.
  const double d = static_cast<double>(n);
  const double element = settings::of(p).f64 ? 8 : 4;
  return {element * d * (d + 1), 2.0 / 3.0 * d * d * d + 2 * d * d};
}

// The work model's operations are the flops themselves, in the element type's precision.
flop_model flops(const param_set& p) { return {1, settings::of(p).f64}; }

// A Matrix Market file's order against the point's n.
void require_order(const std::string& path, std::size_t rows, std::size_t cols, std::uint64_t n) {
  if (rows != cols) throw usage_error(fmt::format("{}: A must be square to solve Ax = b, not {} x {}", path, rows, cols));
  if (rows != n) throw usage_error(fmt::format("{}: the matrix has order {}, but the point asks n = {} (run with --sizes {})", path, rows, n, rows));
}

void validate(const param_set& p, std::span<const std::uint64_t> sizes) {
  const auto s = settings::of(p);
  for (auto n : sizes)
    if (n == 0) throw usage_error("gauss: n must be at least 1 (the number of equations)");
  const std::string& path = s.file;
  if (path.empty()) return;
  const auto info = check_matrix_market(path);
  for (auto n : sizes) require_order(path, info.rows, info.cols, n);
  if (!s.f64 && info.largest > std::numeric_limits<float>::max())
    throw usage_error(fmt::format("{}: an entry of magnitude {:g} is beyond the range of f32 ({:g}); use type=f64", path, info.largest,
                                  static_cast<double>(std::numeric_limits<float>::max())));
}

std::uint64_t size_from_input(const param_set& p) {
  const std::string& path = p.text("file");
  return path.empty() ? 0 : check_matrix_market(path).rows;
}

// Every element of [A|b] as stored in the working type must be finite: a file's values past the
// float range become infinities there, and no verifier may pass on those.
template <class T>
void require_finite(const host_array<T>& m, std::size_t n, const std::string& origin) {
  for (std::size_t k = 0; k < m.size(); ++k)
    if (!std::isfinite(m[k]))
      throw usage_error(fmt::format("{}: element ({}, {}) of [A|b] is {} in {}{}", origin, k / (n + 1) + 1, k % (n + 1) + 1,
                                    static_cast<double>(m[k]), std::is_same_v<T, float> ? "f32" : "f64",
                                    std::is_same_v<T, float> ? " (use type=f64)" : ""));
}

}  // namespace

settings settings::of(const param_set& p) {
  settings s;
  const auto& matrix = p.text("matrix");
  s.matrix = matrix == "general" ? matrix_kind::general : matrix == "sparse" ? matrix_kind::sparse : matrix_kind::dense;
  s.density = p.real("density");
  if (!(s.density > 0 && s.density <= 1)) throw usage_error(fmt::format("gauss: density must be in (0, 1], not {}", s.density));
  s.f64 = p.text("type") == "f64";
  s.file = p.text("file");
  return s;
}

const char* needs_dominance(const param_set& p, std::uint64_t) {
  if (p.text("matrix") == "general")
    return "not applicable: this algorithm does not pivot, so it is valid only for diagonally dominant matrices "
           "(matrix=dense or sparse)";
  return nullptr;
}

input traits::generate(const point_request& r) {
  const auto s = settings::of(*r.params);
  if (r.n == 0) throw usage_error("gauss: n must be at least 1 (the number of equations)");
  input in;
  in.n = r.n;
  in.f64 = s.f64;
  in.origin = r.params->text("matrix");
  dense_matrix file;
  const std::string& path = s.file;
  if (!path.empty()) {
    file = read_matrix_market(path);
    require_order(path, file.rows, file.cols, r.n);
    in.origin = path;
  }
  const std::size_t cells = in.n * (in.n + 1);
  if (in.f64) {
    in.m64 = host_array<double>(cells, r.memory);
    fill<double>(in, path.empty() ? nullptr : &file, s.matrix, s.density, r.seed);
    if (!path.empty()) require_finite(in.m64, in.n, path);
  } else {
    in.m32 = host_array<float>(cells, r.memory);
    fill<float>(in, path.empty() ? nullptr : &file, s.matrix, s.density, r.seed);
    if (!path.empty()) require_finite(in.m32, in.n, path);
  }
  in.dominant = rows_dominant(in);
  return in;
}

}  // namespace ema::gauss

EMA_PROBLEM(gauss, ema::gauss::kit::problem({
                       .title = "solve Ax = b by Gaussian elimination (n equations, [A|b] row-major, float by default)",
                       .size_meaning = "number of equations (A is n x n)",
                       .source = "003_7e2665a3d38c50fb.txt (sections 3 and 4: Algorithms 1 and 2, Codes 3.1 to 3.3, Tables 1 to 3)",
                       .params = ema::gauss::params,
                       .default_sizes = "2^6..2^11,90..1440*2",  // 11 sizes, half an octave apart: enough for a verdict
                       .work = &ema::gauss::work,
                       .rate = {.name = "GFLOP/s", .of_bytes = false, .scale = 1e9, .meaning = "the elimination's and substitution's flops"},
                       .op_unit = "flops",
                       .flops = &ema::gauss::flops,
                       .max_size = std::uint64_t{1} << 20,  // n (n + 1) elements and int indices on the device stay far from overflow
                       .validate = &ema::gauss::validate,
                       .size_from_input = &ema::gauss::size_from_input,
                       .test_sizes = ema::gauss::test_sizes,
                       .test_params = ema::gauss::test_params,
                       .answer_fields = ema::gauss::answer_fields,
                   }));
