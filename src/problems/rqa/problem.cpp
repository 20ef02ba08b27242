// Problem `rqa` (Froguel, 000_d2722dce0c10bad2.txt): the parameters and their ranges, the series, the
// settings parsed once into the input's typed `settings`, the work model and the registration. The
// references and the verifier's contracts are in verify.cpp, the estimators' shared code beside
// their variants (motif.cpp, microstates.cpp, lines.cpp).

// Input: a generated series (`system=logistic|logistic-exact|noise|sine|rossler`; the logistic map
// r = 4 from 0.4 as the source, in double, or its exact orbit through the conjugacy) or a file (`input=PATH`, `column=`); a generated chaotic orbit that
// finite precision has collapsed onto a fixed point or a cycle is refused with the step, rather than
// analysed. eps is used as given (`eps_mode=fixed`, the source's 0.3), as a fraction of the series'
// standard deviation (`std`), or as a target recurrence rate (`rr`: eps is the matching quantile of
// the distances of 2^20 random pairs outside the window, drawn from the seed).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/random.hpp"
#include "inputs/series.hpp"
#include "problems/rqa/motif.hpp"
#include "problems/rqa/rqa.hpp"
#include "problems/rqa/microstates.hpp"

namespace ema::rqa {
namespace {

constexpr std::uint64_t pair_stream = 0x70616972;  // "pair"

// Every norm, window, embedding and strictness, on series with long lines (sine), none (noise) and
// chaos; microstates and cells small enough for the smallest series.
constexpr std::uint64_t test_sizes[] = {1, 2, 7, 64, 150, 700};
// The estimators sample the plot: the exact method's work is no floor of their cost.
constexpr const char* estimators[] = {"motif", "microstates"};
constexpr const char* test_params[] = {
    "system=logistic,Q=4,samples=200,cells=100000",
    "system=logistic,norm=euclidean,theiler=0,strict=false,Q=3,samples=100,cells=100000",
    "system=sine,m=3,tau=2,norm=manhattan,theiler=5,eps=0.2,Q=5,samples=100,cells=100000",
    "system=noise,eps=0.05,lmin=3,vmin=3,Q=4,samples=100,cells=100000",
    "system=rossler,eps_mode=rr,eps=0.1,Q=6,samples=100,cells=200000",
};

constexpr param_spec params[] = {
    {"system", param_kind::choice, "logistic",
     "the generated series (logistic: r = 4 from x0 = 0.4, as the source; "
     "logistic-exact: the map's exact orbit through its conjugacy, any length)",
     "logistic|logistic-exact|noise|sine|rossler"},
    {"input", param_kind::path, "", "read the series from this file instead (one value per line, or CSV)"},
    {"column", param_kind::text, "", "with input=: the CSV column, by header name or 1-based index"},
    {"eps", param_kind::real, "0.3", "recurrence threshold (its meaning depends on eps_mode)"},
    {"eps_mode", param_kind::choice, "fixed",
     "fixed: eps itself; std: eps times the series' standard deviation; "
     "rr: the threshold giving recurrence rate eps",
     "fixed|std|rr"},
    {"m", param_kind::integer, "1", "embedding dimension"},
    {"tau", param_kind::integer, "1", "embedding delay"},
    {"norm", param_kind::choice, "max", "distance between embedded vectors", "max|euclidean|manhattan"},
    {"theiler", param_kind::integer, "1", "Theiler window w: cells with |i - j| < w are excluded (1: the line of identity)"},
    {"lmin", param_kind::integer, "2", "shortest diagonal line counted by DET, L, ENTR"},
    {"vmin", param_kind::integer, "2", "shortest vertical line counted by LAM, TT"},
    {"strict", param_kind::boolean, "true", "recurrent when d < eps (true, the source) or d <= eps (false)"},
    {"Q", param_kind::integer, "200", "microstate side for the seed estimator (the source's code: 200)"},
    {"samples", param_kind::integer, "1000", "microstates the seed estimator draws"},
    {"cells", param_kind::integer, "1000000", "cells the motif estimator draws per round (100 batches)"},
    {"rse", param_kind::real, "0", "motif estimator: draw rounds until LAM's relative standard error is at most this (0: one round)"},
};

work_model work(std::uint64_t n, const param_set& p) {
  // The cells of the recurrence plot (each a distance over m coordinates), the exact method's
  // work and the problem's rate; the series is read.
  const double m = static_cast<double>(p.integer("m")), tau = static_cast<double>(p.integer("tau"));
  const double vectors = std::max(0.0, static_cast<double>(n) - (m - 1) * tau);
  return {8.0 * static_cast<double>(n), vectors * vectors};
}

// A cell of the exact method is a distance over m coordinates in double precision: per
// coordinate a difference, its absolute value or square, and a max or a sum, about 3m flops.
flop_model flops(const param_set& p) { return {3.0 * static_cast<double>(p.integer("m")), true}; }

double distance(const input& in, std::size_t i, std::size_t j) {
  double d = 0;
  for (std::size_t k = 0; k < in.s.m; ++k) {
    const double e = std::abs(in.x[i + k * in.s.tau] - in.x[j + k * in.s.tau]);
    if (in.s.norm == norm_kind::max)
      d = std::max(d, e);
    else if (in.s.norm == norm_kind::manhattan)
      d += e;
    else
      d += e * e;
  }
  return in.s.norm == norm_kind::euclidean ? std::sqrt(d) : d;
}

// The ranges of the integer parameters: wide enough for any plot a machine can hold, narrow enough
// that no product of them overflows (m tau, Q^2, samples as a CUDA grid, cells times rounds).
constexpr std::int64_t most = std::int64_t{1} << 48;
struct integer_range {
  const char* name;
  std::int64_t lo, hi;
};
constexpr integer_range ranges[] = {{"m", 1, 1 << 20},
                                    {"tau", 1, most},
                                    {"theiler", 0, most},
                                    {"lmin", 1, most},
                                    {"vmin", 1, most},
                                    {"Q", 1, 1 << 16},
                                    {"samples", 1, (std::int64_t{1} << 31) - 1},
                                    {"cells", static_cast<std::int64_t>(motif_batches), std::int64_t{1} << 40}};

std::size_t positive(const param_set& p, const char* name) {
  for (const auto& r : ranges)
    if (std::string_view(r.name) == name) return static_cast<std::size_t>(integer_in(p, "rqa", name, r.lo, r.hi));
  throw std::logic_error(fmt::format("rqa: no range for parameter {}", name));
}

double eps_of(const param_set& p) {
  const double eps = p.real("eps");
  if (!(eps >= 0)) throw usage_error(fmt::format("rqa: eps must be at least 0, not {}", eps));
  if (p.text("eps_mode") == "rr" && eps > 1) throw usage_error(fmt::format("rqa: a target recurrence rate must be in [0, 1], not {}", eps));
  return eps;
}

void require_vectors(std::size_t n, std::size_t m, std::size_t tau) {
  if (embedded_vectors(n, m, tau) == 0)
    throw usage_error(fmt::format("rqa: a series of {} values has no vector of dimension m = {} with delay tau = {}", n, m, tau));
}

// The source's orbit collapses onto 0 (inputs/series.hpp logistic_collapse_step): no longer series.
std::uint64_t largest_size(const param_set& p) {
  if (!p.text("input").empty() || p.text("system") != "logistic") return 0;
  return logistic_collapse_step().value_or(0);
}

void validate(const param_set& p, std::span<const std::uint64_t> sizes) {
  for (const auto& r : ranges) integer_in(p, "rqa", r.name, r.lo, r.hi);
  eps_of(p);
  real_in(p, "rqa", "rse", 0, 1);
  const auto m = positive(p, "m"), tau = positive(p, "tau");
  const std::string& path = p.text("input");
  if (path.empty() && !p.text("column").empty()) throw usage_error("rqa: column= names a column of the file given by input=");
  std::optional<std::size_t> length;
  if (!path.empty()) length = read_series(path, p.text("column")).size();
  for (auto n : sizes) {
    if (length && *length != n)
      throw usage_error(fmt::format("{}: the series has {} values, but the point asks n = {} (run with --sizes {})", path, *length, n, *length));
    require_vectors(n, m, tau);
  }
  const auto largest = largest_size(p);
  if (const auto top = std::max_element(sizes.begin(), sizes.end()); largest && top != sizes.end() && *top > largest)
    throw usage_error(
        fmt::format("rqa: n = {} is past the end of system=logistic's orbit: from 0.4 in double it reaches the fixed point 0 "
                    "at step {}, and a longer series is no longer chaotic (system=logistic-exact has no end)",
                    *top, largest));
}

std::uint64_t size_from_input(const param_set& p) {
  const std::string& path = p.text("input");
  return path.empty() ? 0 : read_series(path, p.text("column")).size();
}

}  // namespace

input traits::generate(const point_request& r) {
  const auto& p = *r.params;
  input in;
  const std::string& path = p.text("input");
  if (!path.empty()) {
    in.set_series(read_series(path, p.text("column")), r.memory);
    if (in.x.size() != r.n)
      throw usage_error(
          fmt::format("{}: the series has {} values, but the point asks n = {} (run with --sizes {})", path, in.x.size(), r.n, in.x.size()));
    in.origin = path;
  } else {
    in.set_series(generate_series(p.text("system"), r.n, r.seed), r.memory);
    in.origin = p.text("system");
    if (in.origin == "logistic" || in.origin == "logistic-exact" || in.origin == "rossler")
      if (auto why = degenerate_orbit(in.x))
        throw usage_error(
            fmt::format("rqa: the {} series of length {}: {}; its quantifiers would "
                        "describe that artefact, not the system",
                        in.origin, r.n, *why));
  }
  in.s.m = positive(p, "m");
  in.s.tau = positive(p, "tau");
  in.s.theiler = positive(p, "theiler");
  in.s.lmin = positive(p, "lmin");
  in.s.vmin = positive(p, "vmin");
  in.s.strict = p.boolean("strict");
  in.s.q = positive(p, "Q");
  in.s.samples = positive(p, "samples");
  in.s.cells = positive(p, "cells");
  in.s.rse = real_in(p, "rqa", "rse", 0, 1);
  in.seed = r.seed;
  const auto& norm = p.text("norm");
  in.s.norm = norm == "max" ? norm_kind::max : norm == "euclidean" ? norm_kind::euclidean : norm_kind::manhattan;
  require_vectors(in.x.size(), in.s.m, in.s.tau);
  const double eps = eps_of(p);
  const auto& mode = p.text("eps_mode");
  if (mode == "fixed") {
    in.s.eps = eps;
  } else if (mode == "std") {
    const double mean = std::accumulate(in.x.begin(), in.x.end(), 0.0) / static_cast<double>(in.x.size());
    double var = 0;
    for (double v : in.x) var += (v - mean) * (v - mean);
    in.s.eps = eps * std::sqrt(var / static_cast<double>(in.x.size()));
  } else {
    const std::size_t N = in.vectors();
    std::vector<double> d;
    for (std::uint64_t k = 0; d.size() < (1u << 20) && k < (1u << 22) && N > in.s.theiler; ++k) {
      const auto i = random_below(r.seed ^ pair_stream, 2 * k, N), j = random_below(r.seed ^ pair_stream, 2 * k + 1, N);
      if ((i > j ? i - j : j - i) >= in.s.theiler) d.push_back(distance(in, i, j));
    }
    if (d.empty()) throw usage_error("rqa: no pair of vectors lies outside the Theiler window");
    const auto at = std::min(d.size() - 1, static_cast<std::size_t>(eps * static_cast<double>(d.size())));
    std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(at), d.end());
    in.s.eps = d[at];
  }
  return in;
}

}  // namespace ema::rqa

EMA_PROBLEM(rqa, ema::rqa::kit::problem({
                     .title = "recurrence quantification of a time series: RR, DET, L, Lmax, ENTR, LAM, TT, Vmax",
                     .size_meaning = "length of the time series",
                     .source = "000_d2722dce0c10bad2.txt (laminarity from microstates, equation 1, Table 1)",
                     .params = ema::rqa::params,
                     .default_sizes = "2^8..2^13,362..5792*2",  // 11 sizes, half an octave apart: enough for a verdict
                     .reference_variant = "exact-seq",
                     .work = &ema::rqa::work,
                     .rate = {.name = "Gcells/s", .of_bytes = false, .scale = 1e9, .meaning = "cells of the recurrence plot (N², N vectors)"},
                     .op_unit = "cells",
                     .flops = &ema::rqa::flops,
                     .max_size = (std::uint64_t{1} << 32) - 1,  // N^2 cells are counted in 64 bits
                     .largest_size = &ema::rqa::largest_size,
                     .validate = &ema::rqa::validate,
                     .size_from_input = &ema::rqa::size_from_input,
                     .test_sizes = ema::rqa::test_sizes,
                     .test_params = ema::rqa::test_params,
                     .estimators = ema::rqa::estimators,
                 }));
