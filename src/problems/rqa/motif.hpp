// Our unbiased microstate estimator (issue 5; the quantities of Froguel, 000_d2722dce0c10bad2.txt's equation 1
// without its edge bias): one drawn cell and what it contributes, the same code on the host
// (motif-seq, motif-omp) and on the device (motif-cuda), so every variant draws the same cells and
// counts the same motifs.
//
// Sample k of batch b is cell (i, j) uniform over the plot outside the window: the (b, k)-th pair
// of the point's cell stream, drawn again from a next stream (t = 1, 2, ...) while it falls in the
// window, so every sample is a pure function of (seed, b, k). For a recurrent cell:
//   LAM = P(the cell lies on a vertical run of at least vmin | recurrent) = 1 - sum_{l<vmin} l N(0 1^l 0) / N(1),
//   DET likewise along the diagonal with lmin; the runs are traced only as far as vmin / lmin.
// Line-start sampling: a recurrent cell whose predecessor on the line is not recurrent starts that
// line, so each line is drawn through exactly one of its cells; its whole length is traced (TT, L,
// ENTR as ratios over the starts drawn).
#pragma once

#include <cstdint>

#include "core/host_device.hpp"
#include "inputs/random.hpp"
#include "problems/rqa/rqa.hpp"

namespace ema::rqa {

constexpr std::uint64_t cell_stream = 0x63656c6c;  // "cell"

/// What one drawn cell contributes.
struct motif_sample {
  bool recurrent = false, on_vertical = false, on_diagonal = false;
  std::uint64_t vline = 0;  ///< the length of the vertical line it starts, if at least vmin (else 0)
  std::uint64_t dline = 0;  ///< the length of the diagonal line it starts, if at least lmin (else 0)
};

/// Recurrent cells through (i, j) along direction (1, dj), both ways, counting (i, j), up to `need`.
EMA_HD inline std::uint64_t run_through(const plot& p, std::size_t i, std::size_t j, std::size_t dj, std::uint64_t need) {
  std::uint64_t len = 1;
  for (std::size_t a = i, b = j; len < need && a > 0 && b >= dj && p.recurrent(a - 1, b - dj); --a, b -= dj) ++len;
  for (std::size_t a = i + 1, b = j + dj; len < need && a < p.N && b < p.N && p.recurrent(a, b); ++a, b += dj) ++len;
  return len;
}

/// The length of the line along (1, dj) that starts at recurrent (i, j), or 0 if (i, j) does not start one.
EMA_HD inline std::uint64_t line_from(const plot& p, std::size_t i, std::size_t j, std::size_t dj) {
  if (i > 0 && j >= dj && p.recurrent(i - 1, j - dj)) return 0;
  std::uint64_t len = 1;
  for (std::size_t a = i + 1, b = j + dj; a < p.N && b < p.N && p.recurrent(a, b); ++a, b += dj) ++len;
  return len;
}

/// Sample k of batch b (requires N > w, so that a cell outside the window exists).
EMA_HD inline motif_sample draw_motif(const plot& p, std::uint64_t seed, std::uint64_t batch, std::uint64_t k, std::uint64_t vmin,
                                      std::uint64_t lmin) {
  const std::uint64_t id = (batch << 40) + k;
  std::size_t i = 0, j = 0;
  for (std::uint64_t t = 0;; ++t) {
    const std::uint64_t stream = (seed ^ cell_stream) + t * 0x9e3779b97f4a7c15ull;
    i = random_below(stream, 2 * id, p.N);
    j = random_below(stream, 2 * id + 1, p.N);
    if ((i > j ? i - j : j - i) >= p.w) break;
  }
  motif_sample s;
  if (!p.close(i, j)) return s;
  s.recurrent = true;
  s.on_vertical = run_through(p, i, j, 0, vmin) >= vmin;
  s.on_diagonal = run_through(p, i, j, 1, lmin) >= lmin;
  if (const auto v = line_from(p, i, j, 0); v >= vmin) s.vline = v;
  if (const auto l = line_from(p, i, j, 1); l >= lmin) s.dline = l;
  return s;
}

}  // namespace ema::rqa
