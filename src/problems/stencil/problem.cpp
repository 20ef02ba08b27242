// Problem `stencil` (Pires, 002_345fe0ce529d39b6.txt, section I and Figure 1): the parameters (parsed once
// into `settings`), the initial grid, the work model and the registration; the verifier is in
// verify.cpp.
//
// Initial grid: `init=modes` (the default) is 1 plus four seeded Fourier modes of low wave number,
// a cos(2 pi (p i + q j) / n + phi) with |p|, |q| <= 8, a in [0.25, 1), so the closed form of the
// verifier applies (periodic boundaries) and the field keeps its shape over many steps;
// `init=random` is uniform in [-1, 1) per cell; `input=PATH` reads a square Matrix Market file
// (array or coordinate), whose side is n. Cell (i, j) is a pure function of (seed, i, j).
#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <numbers>
#include <vector>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/matrix_market.hpp"
#include "inputs/random.hpp"
#include "problems/stencil/stencil.hpp"

namespace ema::stencil {
namespace {

constexpr std::uint64_t mode_stream = 0x6d6f646573;  // "modes"
constexpr int mode_count = 4;
constexpr std::int64_t max_wave = 8;
constexpr std::int64_t max_steps = std::int64_t{1} << 40;

constexpr param_spec params[] = {
    {"type", param_kind::choice, "f32", "element type", "f32|f64"},
    {"steps", param_kind::integer, "100", "time steps T"},
    {"k", param_kind::integer, "0", "time steps per load of a tile (the source's n; 0: each variant chooses, from the size where it can)", nullptr,
     true},
    {"c0", param_kind::real, "0.6", "weight of the cell itself"},
    {"cw", param_kind::real, "0.1", "weight of the west neighbour (column j - 1)"},
    {"ce", param_kind::real, "0.1", "weight of the east neighbour (column j + 1)"},
    {"cn", param_kind::real, "0.1", "weight of the north neighbour (row i - 1)"},
    {"cs", param_kind::real, "0.1", "weight of the south neighbour (row i + 1)"},
    {"boundary", param_kind::choice, "periodic", "periodic (indices wrap) or fixed (the outer cells keep their initial values)", "periodic|fixed"},
    {"init", param_kind::choice, "modes",
     "initial grid: 1 plus seeded Fourier modes (checked against the closed form when "
     "periodic), or uniform random in [-1, 1)",
     "modes|random"},
    {"input", param_kind::path, "", "read the initial grid from this Matrix Market file (square; n is its side)"},
    {"dump", param_kind::output, "", "write the final grid to this new Matrix Market file ({n} in the path: the side; never replaces a file)"},
};

// Edge sizes around the warp (32) and the tiles; T around k (0, 1, 2, k - 1, k, k + 1, 3k + 1) on
// both boundaries and types; random grids with unequal weights (a west/east or north/south mix-up
// shows); each variant's own k and the largest.
constexpr std::uint64_t test_sizes[] = {1, 2, 3, 31, 32, 33, 127, 128, 129, 1000};
constexpr const char* test_params[] = {
    "k=1,steps=7",  // first: the launch-override tests run it (a tile of 3 holds k = 1)
    "k=4,steps=0",
    "k=4,steps=1",
    "k=4,steps=2",
    "k=4,steps=3",
    "k=4,steps=4",
    "k=4,steps=5",
    "k=4,steps=13",
    "k=4,steps=1,boundary=fixed,type=f64",
    "k=4,steps=2,boundary=fixed,type=f64",
    "k=4,steps=3,boundary=fixed,type=f64",
    "k=4,steps=4,boundary=fixed,type=f64",
    "k=4,steps=5,boundary=fixed,type=f64",
    "k=4,steps=13,boundary=fixed,type=f64",
    "k=4,steps=13,type=f64",
    "k=4,steps=13,boundary=fixed",
    "init=random,c0=0.5,cw=0.05,ce=0.15,cn=0.2,cs=0.1,k=3,steps=10",
    "init=random,c0=0.5,cw=0.05,ce=0.15,cn=0.2,cs=0.1,k=3,steps=10,boundary=fixed,type=f64",
    "steps=20",
    "steps=20,type=f64,boundary=fixed",
    "k=16,steps=33",
    "k=16,steps=33,boundary=fixed,type=f64",
};

// Beside the rate of cell updates: the work model's bytes over the same time, an effective bandwidth
// (2 sizeof(T) n² T bytes, each cell read and written every step: a copy's traffic, so measured
// against the probed copy bandwidth on a GPU).
constexpr summary_desc summaries[] = {
    {.name = "eff. GB/s",
     .what = "the work model's bytes over the same time (an effective bandwidth)",
     .kind = summary_kind::bandwidth,
     .gpu_ceiling = "device_copy_bw"},
};

work_model work(std::uint64_t n, const param_set& p) {
  // Each cell update reads the cell and writes it at least once per step when nothing is reused
  // across steps: the copy roofline of a step-at-a-time code (temporal blocking beats it).
  const double cells = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(p.integer("steps"));
  const double element = p.text("type") == "f64" ? 8 : 4;
  return {2 * element * cells, cells};
}

// Two grids of n x n elements, read and written in turn.
double working_set(std::uint64_t n, const param_set& p) {
  return 2.0 * (p.text("type") == "f64" ? 8 : 4) * static_cast<double>(n) * static_cast<double>(n);
}

// A cell update is a multiply and four fused multiply-adds (host_step.cpp, device.cuh): 9 flops
// in the element type's precision.
flop_model flops(const param_set& p) { return {9, p.text("type") == "f64"}; }

void require_side(const std::string& path, std::size_t rows, std::size_t cols, std::uint64_t n) {
  if (rows != cols) throw usage_error(fmt::format("{}: the grid must be square, not {} x {}", path, rows, cols));
  if (rows != n) throw usage_error(fmt::format("{}: the grid's side is {}, but the point asks n = {} (run with --sizes {})", path, rows, n, rows));
}

void validate(const param_set& p, std::span<const std::uint64_t> sizes) {
  const auto s = settings::of(p);
  for (auto n : sizes)
    if (n == 0) throw usage_error("stencil: n must be at least 1 (the side of the grid)");
  if (!s.dump.empty()) {
    if (sizes.size() > 1 && s.dump.find("{n}") == std::string::npos)
      throw usage_error(fmt::format("stencil: dump={}: with several sizes, put {{n}} in the path (each size writes its own file)", s.dump));
    for (auto n : sizes) {
      const auto path = dump_path(s.dump, n);
      const auto parent = std::filesystem::absolute(path).parent_path();
      std::error_code ec;
      if (!std::filesystem::is_directory(parent, ec))
        throw usage_error(fmt::format("stencil: dump={}: the folder {} does not exist", path, parent.string()));
      if (std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found)
        throw usage_error(fmt::format("stencil: dump={}: it exists; ema writes a new file and never replaces one", path));
    }
  }
  if (s.input.empty()) return;
  const auto info = check_matrix_market(s.input);
  for (auto n : sizes) require_side(s.input, info.rows, info.cols, n);
  if (!s.f64 && info.largest > std::numeric_limits<float>::max())
    throw usage_error(fmt::format("{}: an entry of magnitude {:g} is beyond the range of f32; use type=f64", s.input, info.largest));
}

std::uint64_t size_from_input(const param_set& p) {
  const std::string& path = p.text("input");
  if (path.empty()) return 0;
  const auto info = check_matrix_market(path);
  if (info.rows != info.cols) throw usage_error(fmt::format("{}: the grid must be square, not {} x {}", path, info.rows, info.cols));
  return info.rows;
}

double uniform01(std::uint64_t r) { return static_cast<double>(r >> 11) * 0x1.0p-53; }

std::vector<mode> draw_modes(std::uint64_t seed) {
  std::vector<mode> modes;
  for (std::uint64_t m = 0; modes.size() < mode_count; ++m) {
    const auto draw = [&](std::uint64_t k) { return random_at(seed ^ mode_stream, 8 * m + k); };
    mode md;
    md.p = static_cast<std::int64_t>(draw(0) % (2 * max_wave + 1)) - max_wave;
    md.q = static_cast<std::int64_t>(draw(1) % (2 * max_wave + 1)) - max_wave;
    if (md.p == 0 && md.q == 0) continue;
    md.a = 0.25 + 0.75 * uniform01(draw(2));
    md.phi = 2 * std::numbers::pi * uniform01(draw(3));
    modes.push_back(md);
  }
  return modes;
}

template <class T>
void fill(input& in, const dense_matrix* file, std::uint64_t seed) {
  host_array<T>& g = [&]() -> host_array<T>& {
    if constexpr (std::is_same_v<T, float>)
      return in.g32;
    else
      return in.g64;
  }();
  const std::size_t n = in.n;
  // init=modes: a cos(2 pi k / n + phi) as the real part of a e^{i phi} times a table of the n
  // roots of unity (k = (p i + q j) mod n, exact), no cosine per cell.
  std::vector<std::complex<double>> root, amplitude;
  if (in.s.init == init_kind::modes && !file) {
    root.resize(n);
    for (std::size_t k = 0; k < n; ++k) root[k] = std::polar(1.0, 2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n));
    for (const auto& m : in.modes) amplitude.push_back(std::polar(m.a, m.phi));
  }
  const auto rows = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t ii = 0; ii < rows; ++ii) {
    const auto i = static_cast<std::size_t>(ii);
    for (std::size_t j = 0; j < n; ++j) {
      double v;
      if (file) {
        v = file->at(i, j);
      } else if (in.s.init == init_kind::random) {
        v = 2 * uniform01(random_at(seed, i * n + j)) - 1;
      } else {
        v = in.mean;
        for (std::size_t m = 0; m < in.modes.size(); ++m) v += (amplitude[m] * root[mode_phase(in.modes[m], n, i, j)]).real();
      }
      g[i * n + j] = static_cast<T>(v);
    }
  }
  if (!file) return;
  for (std::size_t k = 0; k < g.size(); ++k)
    if (!std::isfinite(g[k]))
      throw usage_error(fmt::format("{}: cell ({}, {}) is {} in {}", in.origin, k / n + 1, k % n + 1, static_cast<double>(g[k]),
                                    std::is_same_v<T, float> ? "f32 (use type=f64)" : "f64"));
}

}  // namespace

std::uint64_t mode_phase(const mode& m, std::size_t n, std::size_t i, std::size_t j) {
  const auto nn = static_cast<std::int64_t>(n);
  const auto p = static_cast<std::uint64_t>(((m.p % nn) + nn) % nn), q = static_cast<std::uint64_t>(((m.q % nn) + nn) % nn);
  return (p * i + q * j) % n;
}

settings settings::of(const param_set& p) {
  settings s;
  s.f64 = p.text("type") == "f64";
  s.steps = static_cast<std::uint64_t>(integer_in(p, "stencil", "steps", 0, max_steps));
  s.k = static_cast<int>(integer_in(p, "stencil", "k", 0, max_k));
  const double huge = std::numeric_limits<float>::max();
  s.c0 = real_in(p, "stencil", "c0", -huge, huge);
  s.cw = real_in(p, "stencil", "cw", -huge, huge);
  s.ce = real_in(p, "stencil", "ce", -huge, huge);
  s.cn = real_in(p, "stencil", "cn", -huge, huge);
  s.cs = real_in(p, "stencil", "cs", -huge, huge);
  s.boundary = p.text("boundary") == "fixed" ? boundary_kind::fixed : boundary_kind::periodic;
  s.input = p.text("input");
  s.init = !s.input.empty() ? init_kind::file : p.text("init") == "random" ? init_kind::random : init_kind::modes;
  s.dump = p.text("dump");
  return s;
}

std::string dump_path(const std::string& pattern, std::uint64_t n) { return output_file_at(pattern, n); }

int steps_per_load(const settings& s, int chosen) {
  const auto k = static_cast<std::uint64_t>(s.k > 0 ? s.k : chosen);
  return static_cast<int>(std::max<std::uint64_t>(1, std::min(k, s.steps)));
}

input traits::generate(const point_request& r) {
  input in;
  in.s = settings::of(*r.params);
  if (r.n == 0) throw usage_error("stencil: n must be at least 1 (the side of the grid)");
  in.n = r.n;
  dense_matrix file;
  if (in.s.init == init_kind::file) {
    file = read_matrix_market(in.s.input);
    require_side(in.s.input, file.rows, file.cols, r.n);
    in.origin = in.s.input;
  } else if (in.s.init == init_kind::modes) {
    in.mean = 1;
    in.modes = draw_modes(r.seed);
    in.origin = "modes";
  } else {
    in.origin = "random";
  }
  const dense_matrix* from = in.s.init == init_kind::file ? &file : nullptr;
  if (in.s.f64) {
    in.g64 = host_array<double>(in.cells(), r.memory);
    fill<double>(in, from, r.seed);
  } else {
    in.g32 = host_array<float>(in.cells(), r.memory);
    fill<float>(in, from, r.seed);
  }
  return in;
}

}  // namespace ema::stencil

EMA_PROBLEM(stencil, ema::stencil::kit::problem({
                         .title = "T time steps of a 5-point Jacobi stencil on an n x n grid (f32 by default; periodic or fixed boundaries)",
                         .size_meaning = "side of the square grid (n x n cells)",
                         .source = "002_345fe0ce529d39b6.txt (section I and Figure 1: the problem; section III and Code 1: k steps per load)",
                         .params = ema::stencil::params,
                         .default_sizes = "2^8..2^13,362..5792*2",  // 11 sizes, half an octave apart: enough for a verdict
                         // A GPU's 100 steps of 2^13 x 2^13 cells take 5-10 ms on an H200, still near its fixed costs;
                         // 2^14 x 2^14 (two 1 GiB grids in f32) about 0.1 s.
                         .default_sizes_gpu = "2^8..2^14,362..11585*2",
                         .work = &ema::stencil::work,
                         .working_set = &ema::stencil::working_set,
                         .rate = {.name = "Gcells/s", .of_bytes = false, .scale = 1e9, .meaning = "cell updates (n² T)"},
                         .op_unit = "cell updates",
                         .flops = &ema::stencil::flops,
                         .max_size = std::uint64_t{1} << 20,  // n^2 cells counted in 64 bits with room; rows indexed in 32 bits on the GPU
                         .validate = &ema::stencil::validate,
                         .size_from_input = &ema::stencil::size_from_input,
                         .test_sizes = ema::stencil::test_sizes,
                         .test_params = ema::stencil::test_params,
                         .summaries = ema::stencil::summaries,
                     }));
