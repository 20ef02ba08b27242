// Problem `rqa` (000_d2722dce0c10bad2.txt): the series, the settings, the quantifiers, the reference
// and the verifier.
//
// Input: a generated series (`system=logistic|logistic-exact|noise|sine|rossler`; the logistic map
// r = 4 from 0.4 as the source, in double, or its exact orbit through the conjugacy) or a file (`input=PATH`, `column=`); a generated chaotic orbit that
// finite precision has collapsed onto a fixed point or a cycle is refused with the step, rather than
// analysed. eps is used as given (`eps_mode=fixed`, the source's 0.3), as a fraction of the series'
// standard deviation (`std`), or as a target recurrence rate (`rr`: eps is the matching quantile of
// the distances of 2^20 random pairs outside the window, drawn from the seed).
//
// Verifier: up to N = 4096 vectors the line-length histograms must equal the reference's, which
// builds the whole matrix and scans every column and diagonal. Beyond it: the histograms must be
// consistent (each counts every recurrent cell once, the diagonal ones twice over per line off the
// line of identity) and RR must agree, within 5 standard errors, with 65536 random cells evaluated
// independently.
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
#include "problems/rqa/seed.hpp"

namespace ema::rqa {
namespace {

constexpr std::uint64_t pair_stream = 0x70616972;   // "pair"
constexpr std::uint64_t micro_stream = 0x6d69637230;  // "micr0"

// Every norm, window, embedding and strictness, on series with long lines (sine), none (noise) and
// chaos; microstates and cells small enough for the smallest series.
constexpr std::uint64_t test_sizes[] = {1, 2, 7, 64, 150, 700};
constexpr const char* test_params[] = {
    "system=logistic,Q=4,samples=200,cells=100000",
    "system=logistic,norm=euclidean,theiler=0,strict=false,Q=3,samples=100,cells=100000",
    "system=sine,m=3,tau=2,norm=manhattan,theiler=5,eps=0.2,Q=5,samples=100,cells=100000",
    "system=noise,eps=0.05,lmin=3,vmin=3,Q=4,samples=100,cells=100000",
    "system=rossler,eps_mode=rr,eps=0.1,Q=6,samples=100,cells=200000",
};

constexpr param_spec params[] = {
    {"system", param_kind::choice, "logistic", "the generated series (logistic: r = 4 from x0 = 0.4, as the source; "
     "logistic-exact: the map's exact orbit through its conjugacy, any length)", "logistic|logistic-exact|noise|sine|rossler"},
    {"input", param_kind::path, "", "read the series from this file instead (one value per line, or CSV)"},
    {"column", param_kind::text, "", "with input=: the CSV column, by header name or 1-based index"},
    {"eps", param_kind::real, "0.3", "recurrence threshold (its meaning depends on eps_mode)"},
    {"eps_mode", param_kind::choice, "fixed", "fixed: eps itself; std: eps times the series' standard deviation; "
                                              "rr: the threshold giving recurrence rate eps", "fixed|std|rr"},
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
  // One evaluation per cell of the plot (m coordinates each); the series is read.
  const double m = static_cast<double>(p.integer("m")), tau = static_cast<double>(p.integer("tau"));
  const double vectors = std::max(0.0, static_cast<double>(n) - (m - 1) * tau);
  return {8.0 * static_cast<double>(n), vectors * vectors * m};
}

double distance(const input& in, std::size_t i, std::size_t j) {
  double d = 0;
  for (std::size_t k = 0; k < in.s.m; ++k) {
    const double e = std::abs(in.x[i + k * in.s.tau] - in.x[j + k * in.s.tau]);
    if (in.s.norm == norm_kind::max) d = std::max(d, e);
    else if (in.s.norm == norm_kind::manhattan) d += e;
    else d += e * e;
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
constexpr integer_range ranges[] = {{"m", 1, 1 << 20},          {"tau", 1, most},        {"theiler", 0, most},
                                    {"lmin", 1, most},          {"vmin", 1, most},       {"Q", 1, 1 << 16},
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
  if (p.text("eps_mode") == "rr" && eps > 1)
    throw usage_error(fmt::format("rqa: a target recurrence rate must be in [0, 1], not {}", eps));
  return eps;
}

void require_vectors(std::size_t n, std::size_t m, std::size_t tau) {
  if (embedded_vectors(n, m, tau) == 0)
    throw usage_error(fmt::format("rqa: a series of {} values has no vector of dimension m = {} with delay tau = {}", n, m, tau));
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
      throw usage_error(fmt::format("{}: the series has {} values, but the point asks n = {} (run with --sizes {})", path, *length, n,
                                    *length));
    require_vectors(n, m, tau);
  }
}

}  // namespace

histograms reference_histograms(const input& in) {
  const std::size_t N = in.vectors();
  std::vector<unsigned char> R(N * N);
  const plot p = in.view();
  histograms h;
  h.diagonal.assign(N + 1, 0);
  h.vertical.assign(N + 1, 0);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t gap = i > j ? i - j : j - i;
      if (gap >= in.s.theiler) ++h.cells;
      R[i * N + j] = p.recurrent(i, j);
      h.recurrent += R[i * N + j];
    }
  for (std::size_t j = 0; j < N; ++j) {  // columns
    std::size_t run = 0;
    for (std::size_t i = 0; i <= N; ++i) {
      if (i < N && R[i * N + j]) {
        ++run;
      } else if (run) {
        ++h.vertical[run];
        run = 0;
      }
    }
  }
  for (std::size_t s = 0; s + 1 < 2 * N; ++s) {  // diagonals: start on the first row or column
    std::size_t i = s < N ? 0 : s - N + 1, j = s < N ? s : 0, run = 0;
    for (;; ++i, ++j) {
      const bool inside = i < N && j < N;
      if (inside && R[i * N + j]) {
        ++run;
        continue;
      }
      if (run) ++h.diagonal[run];
      run = 0;
      if (!inside) break;
    }
  }
  return h;
}

std::pair<std::size_t, std::size_t> microstate_at(const input& in, std::uint64_t s) {
  const std::size_t span = in.vectors() - in.s.q + 1;
  return {random_below(in.seed ^ micro_stream, 2 * s, span), random_below(in.seed ^ micro_stream, 2 * s + 1, span)};
}

estimate reference_seed(const input& in) {
  const std::size_t Q = in.s.q;
  estimate e;
  e.samples = in.s.samples;
  double sum = 0, sum2 = 0;
  std::vector<unsigned char> block(Q * Q);
  const plot p = in.view();
  for (std::uint64_t s = 0; s < in.s.samples; ++s) {
    const auto [i, j] = microstate_at(in, s);
    for (std::size_t a = 0; a < Q; ++a)
      for (std::size_t b = 0; b < Q; ++b) block[a * Q + b] = p.recurrent(i + a, j + b);
    std::vector<std::uint64_t> hist(Q + 1, 0);
    for (std::size_t b = 0; b < Q; ++b) {
      std::size_t run = 0;
      for (std::size_t a = 0; a <= Q; ++a) {
        if (a < Q && block[a * Q + b]) ++run;
        else if (run) ++hist[run], run = 0;
      }
    }
    double lam = 0, total = 0;
    for (std::size_t v = 1; v <= Q; ++v) {
      total += static_cast<double>(v * hist[v]);
      if (v >= in.s.vmin) lam += static_cast<double>(v * hist[v]);
    }
    if (total == 0) continue;
    ++e.used;
    sum += lam / total;
    sum2 += (lam / total) * (lam / total);
  }
  return seed_estimate(e.samples, e.used, sum, sum2);
}

motif_counts motif_batch(const input& in, std::uint64_t batch) {
  const std::uint64_t per = in.s.cells / motif_batches;
  motif_counts c;
  const plot p = in.view();
  if (p.N == 0 || p.N <= p.w) return c;
  for (std::uint64_t k = 0; k < per; ++k) {
    const auto s = draw_motif(p, in.seed, batch, k, in.s.vmin, in.s.lmin);
    c.recurrent += s.recurrent, c.on_vertical += s.on_vertical, c.on_diagonal += s.on_diagonal;
    if (s.vline) ++c.vstarts, c.vlength += s.vline;
    if (s.dline) {
      ++c.dstarts;
      c.dlength += s.dline;
      if (c.dhist.size() <= s.dline) c.dhist.resize(s.dline + 1, 0);
      ++c.dhist[s.dline];
    }
  }
  return c;
}

motif_estimate motif_from_batches(const input& in, const std::vector<motif_counts>& batches) {
  motif_estimate m;
  auto ratio = [&](auto part, auto whole) {
    estimate e;
    e.samples = in.s.cells / motif_batches * batches.size();
    std::uint64_t num = 0, den = 0;
    for (const auto& b : batches) num += part(b), den += whole(b);
    e.used = den;
    if (!den) return e;
    e.value = static_cast<double>(num) / static_cast<double>(den);
    // Batch means of the ratio estimator: the spread of the batches' residuals num_b - R den_b.
    double ss = 0;
    const double mean_den = static_cast<double>(den) / static_cast<double>(batches.size());
    for (const auto& b : batches) {
      const double r = static_cast<double>(part(b)) - e.value * static_cast<double>(whole(b));
      ss += r * r;
    }
    const double B = static_cast<double>(batches.size());
    e.se = B > 1 ? std::sqrt(ss / (B - 1) / B) / mean_den : 0;
    return e;
  };
  m.lam = ratio([](const motif_counts& b) { return b.on_vertical; }, [](const motif_counts& b) { return b.recurrent; });
  m.det = ratio([](const motif_counts& b) { return b.on_diagonal; }, [](const motif_counts& b) { return b.recurrent; });
  m.tt = ratio([](const motif_counts& b) { return b.vlength; }, [](const motif_counts& b) { return b.vstarts; });
  m.l = ratio([](const motif_counts& b) { return b.dlength; }, [](const motif_counts& b) { return b.dstarts; });
  std::vector<std::uint64_t> all;
  for (const auto& b : batches) {
    if (all.size() < b.dhist.size()) all.resize(b.dhist.size(), 0);
    for (std::size_t l = 0; l < b.dhist.size(); ++l) all[l] += b.dhist[l];
  }
  m.entr = plugin_entropy(all);
  return m;
}

double plugin_entropy(const std::vector<std::uint64_t>& counts) {
  std::uint64_t total = 0;
  for (auto c : counts) total += c;
  double h = 0;
  for (auto c : counts)
    if (c) {
      const double p = static_cast<double>(c) / static_cast<double>(total);
      h -= p * std::log(p);
    }
  return h;
}

quantifiers quantify(const histograms& h, std::size_t lmin, std::size_t vmin) {
  quantifiers q;
  q.RR = h.cells ? static_cast<double>(h.recurrent) / static_cast<double>(h.cells) : 0;
  auto side = [](const std::vector<std::uint64_t>& P, std::size_t least, double& fraction, double& mean, double& longest,
                 double* entropy) {
    double all = 0, long_points = 0, long_lines = 0;
    for (std::size_t l = 1; l < P.size(); ++l) {
      all += static_cast<double>(l) * static_cast<double>(P[l]);
      if (l >= least) long_points += static_cast<double>(l) * static_cast<double>(P[l]), long_lines += static_cast<double>(P[l]);
      if (P[l]) longest = static_cast<double>(l);
    }
    fraction = all > 0 ? long_points / all : 0;
    mean = long_lines > 0 ? long_points / long_lines : 0;
    if (entropy) {
      double e = 0;
      for (std::size_t l = least; l < P.size(); ++l)
        if (P[l]) {
          const double p = static_cast<double>(P[l]) / long_lines;
          e -= p * std::log(p);
        }
      *entropy = e;
    }
  };
  side(h.diagonal, lmin, q.DET, q.L, q.Lmax, &q.ENTR);
  side(h.vertical, vmin, q.LAM, q.TT, q.Vmax, nullptr);
  return q;
}

std::string result_json(const input& in, const histograms& h) {
  const auto q = quantify(h, in.s.lmin, in.s.vmin);
  return fmt::format(R"({{"RR":{:.9g},"DET":{:.9g},"L":{:.9g},"Lmax":{},"ENTR":{:.9g},"LAM":{:.9g},"TT":{:.9g},"Vmax":{},)"
                     R"("recurrent":{},"cells":{},"eps":{:.9g},"vectors":{}}})",
                     q.RR, q.DET, q.L, q.Lmax, q.ENTR, q.LAM, q.TT, q.Vmax, h.recurrent, h.cells, in.s.eps, in.vectors());
}

input traits::generate(const point_request& r) {
  const auto& p = *r.params;
  input in;
  const std::string& path = p.text("input");
  if (!path.empty()) {
    in.set_series(read_series(path, p.text("column")), r.memory);
    if (in.x.size() != r.n)
      throw usage_error(fmt::format("{}: the series has {} values, but the point asks n = {} (run with --sizes {})", path,
                                    in.x.size(), r.n, in.x.size()));
    in.origin = path;
  } else {
    in.set_series(generate_series(p.text("system"), r.n, r.seed), r.memory);
    in.origin = p.text("system");
    if (in.origin == "logistic" || in.origin == "logistic-exact" || in.origin == "rossler")
      if (auto why = degenerate_orbit(in.x)) throw usage_error(fmt::format("rqa: the {} series of length {}: {}; its quantifiers would "
                                                                          "describe that artefact, not the system", in.origin, r.n, *why));
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

expected traits::reference(const input& in) {
  expected e;
  if (in.vectors() <= reference_limit) {
    e.have_histograms = true;
    e.h = reference_histograms(in);
  }
  return e;
}

namespace {
/// An estimate's 95 % confidence interval (normal: value ± 1.96 se) as a JSON pair.
std::string ci95(const estimate& e) { return fmt::format("[{:.9g},{:.9g}]", e.value - 1.96 * e.se, e.value + 1.96 * e.se); }
}  // namespace

outcome traits::check(const input& in, const expected& want, const output& got) {
  outcome o;
  if (got.seed) {
    const auto& e = *got.seed;
    o.result_json = fmt::format(R"({{"LAM":{:.9g},"LAM_se":{:.3g},"LAM_ci95":{},"samples":{},"microstates_used":{},"Q":{},"eps":{:.9g}}})",
                                e.value, e.se, ci95(e), e.samples, e.used, in.s.q, in.s.eps);
    if (!want.seed) want.seed = reference_seed(in);
    const auto& r = *want.seed;
    if (e.samples != r.samples || e.used != r.used)
      o.reason = fmt::format("{} microstates of {} used; the reference uses {} of {}", e.used, e.samples, r.used, r.samples);
    else if (!(std::abs(e.value - r.value) <= 1e-9 * std::max(1.0, std::abs(r.value))))
      o.reason = fmt::format("LAM {:.12g} from the microstates; the reference computes {:.12g} from the same ones", e.value, r.value);
    else
      o.verified = true;
    return o;
  }
  if (got.motif) {
    const auto& m = *got.motif;
    o.result_json = fmt::format(R"({{"LAM":{:.9g},"LAM_se":{:.3g},"LAM_ci95":{},"DET":{:.9g},"DET_se":{:.3g},"DET_ci95":{},)"
                                R"("TT":{:.9g},"TT_se":{:.3g},"L":{:.9g},"L_se":{:.3g},"ENTR":{:.9g},"cells":{},"recurrent_drawn":{},)"
                                R"("line_starts_drawn":{},"eps":{:.9g}}})",
                                m.lam.value, m.lam.se, ci95(m.lam), m.det.value, m.det.se, ci95(m.det), m.tt.value, m.tt.se, m.l.value,
                                m.l.se, m.entr, m.lam.samples, m.lam.used, m.l.used, in.s.eps);
    // Where the exact plot is affordable: the exact values within 5 standard errors.
    if (want.have_histograms) {
      const auto q = quantify(want.h, in.s.lmin, in.s.vmin);
      const double tol_l = 5 * m.lam.se + 1e-12, tol_d = 5 * m.det.se + 1e-12;
      if (std::abs(m.lam.value - q.LAM) > tol_l)
        o.reason = fmt::format("LAM estimate {:.6g} is {:.2g} standard errors from the exact {:.6g}", m.lam.value,
                               std::abs(m.lam.value - q.LAM) / std::max(m.lam.se, 1e-300), q.LAM);
      else if (std::abs(m.det.value - q.DET) > tol_d)
        o.reason = fmt::format("DET estimate {:.6g} is {:.2g} standard errors from the exact {:.6g}", m.det.value,
                               std::abs(m.det.value - q.DET) / std::max(m.det.se, 1e-300), q.DET);
      // TT and L are ratios over the line starts drawn; with fewer than 1000 of them (10 per batch)
      // their batch-means standard error is itself too noisy to test against (the conformance
      // tests met a 5-standard-error miss of L at 450 starts on a 60-vector sine plot, where 10^7
      // cells give the exact value to 0.1%).
      else if (m.tt.used >= 1000 && std::abs(m.tt.value - q.TT) > 5 * m.tt.se + 1e-9)
        o.reason = fmt::format("TT estimate {:.6g} is more than 5 standard errors ({:.3g}) from the exact {:.6g}", m.tt.value, m.tt.se, q.TT);
      else if (m.l.used >= 1000 && std::abs(m.l.value - q.L) > 5 * m.l.se + 1e-9)
        o.reason = fmt::format("L estimate {:.6g} is more than 5 standard errors ({:.3g}) from the exact {:.6g}", m.l.value, m.l.se, q.L);
      else if (m.l.used >= 1000 && std::abs(m.entr - q.ENTR) > 0.1)
        o.reason = fmt::format("ENTR estimate {:.6g} is more than 0.1 from the exact {:.6g}", m.entr, q.ENTR);
      else
        o.verified = true;
    } else {
      const std::uint64_t round = in.s.cells / motif_batches * motif_batches;
      o.verified = m.lam.value >= 0 && m.lam.value <= 1 && m.det.value >= 0 && m.det.value <= 1 && m.lam.samples % round == 0 &&
                   m.lam.samples / round <= motif_max_rounds;
      if (!o.verified) o.reason = "estimates outside [0, 1] or a wrong sample count";
    }
    return o;
  }
  const auto& h = got.h;
  const std::size_t N = in.vectors();
  o.result_json = result_json(in, h);
  if (h.diagonal.size() != N + 1 || h.vertical.size() != N + 1) {
    o.reason = fmt::format("histograms of {} and {} lengths for {} vectors", h.diagonal.size(), h.vertical.size(), N);
    return o;
  }
  if (want.have_histograms) {
    if (h.recurrent != want.h.recurrent || h.cells != want.h.cells)
      o.reason = fmt::format("{} recurrent cells of {}, the reference has {} of {}", h.recurrent, h.cells, want.h.recurrent, want.h.cells);
    else if (h.diagonal != want.h.diagonal || h.vertical != want.h.vertical) {
      std::size_t l = 1;
      while (l <= N && h.diagonal[l] == want.h.diagonal[l] && h.vertical[l] == want.h.vertical[l]) ++l;
      o.reason = fmt::format("line histograms differ from the reference at length {}: diagonal {} (reference {}), vertical {} "
                             "(reference {})", l, h.diagonal[l], want.h.diagonal[l], h.vertical[l], want.h.vertical[l]);
    } else {
      o.verified = true;
    }
    return o;
  }
  std::uint64_t dsum = 0, vsum = 0;
  for (std::size_t l = 1; l <= N; ++l) dsum += l * h.diagonal[l], vsum += l * h.vertical[l];
  const std::uint64_t window = in.s.theiler == 0 ? 0 : N + 2 * (std::min<std::uint64_t>(in.s.theiler, N) - 1) * N -
                                                         (std::min<std::uint64_t>(in.s.theiler, N) - 1) * std::min<std::uint64_t>(in.s.theiler, N);
  if (dsum != h.recurrent || vsum != h.recurrent) {
    o.reason = fmt::format("the line histograms hold {} (diagonal) and {} (vertical) recurrent cells, but {} were counted", dsum, vsum, h.recurrent);
    return o;
  }
  if (h.cells != static_cast<std::uint64_t>(N) * N - window) {
    o.reason = fmt::format("{} cells outside the window counted; there are {}", h.cells, static_cast<std::uint64_t>(N) * N - window);
    return o;
  }
  // RR against random cells evaluated here.
  const plot cells = in.view();
  const std::uint64_t samples = 65536;
  std::uint64_t hits = 0, drawn = 0;
  for (std::uint64_t k = 0; drawn < samples && k < 4 * samples; ++k) {
    const auto i = random_below(0x636865636b, 2 * k, N), j = random_below(0x636865636b, 2 * k + 1, N);
    if ((i > j ? i - j : j - i) < in.s.theiler) continue;
    ++drawn;
    hits += cells.recurrent(i, j);
  }
  const double rr = h.cells ? static_cast<double>(h.recurrent) / static_cast<double>(h.cells) : 0;
  const double p = drawn ? static_cast<double>(hits) / static_cast<double>(drawn) : rr;
  const double se = std::sqrt(std::max(rr * (1 - rr), 1.0 / static_cast<double>(drawn ? drawn : 1)) / static_cast<double>(drawn ? drawn : 1));
  if (std::abs(p - rr) > 5 * se) {
    o.reason = fmt::format("RR = {:.6g}, but {} random cells give {:.6g} (5 standard errors: {:.3g})", rr, drawn, p, 5 * se);
    return o;
  }
  o.verified = true;
  return o;
}

}  // namespace ema::rqa

EMA_PROBLEM(rqa, ema::rqa::kit::problem({
    .title = "recurrence quantification of a time series: RR, DET, L, Lmax, ENTR, LAM, TT, Vmax",
    .size_meaning = "length of the time series",
    .source = "000_d2722dce0c10bad2.txt (laminarity from microstates, equation 1, Table 1)",
    .params = ema::rqa::params,
    .default_sizes = "2^8..2^12",
    .reference_variant = "exact-seq",
    .work = &ema::rqa::work,
    .max_size = (std::uint64_t{1} << 32) - 1,  // N^2 cells are counted in 64 bits
    .validate = &ema::rqa::validate,
    .test_sizes = ema::rqa::test_sizes,
    .test_params = ema::rqa::test_params,
}));
