// rqa's exact line counting by lines (exact-seq, exact-omp; exact-cuda counts the same lines on the
// device). The plot is symmetric, so its lines are those of its N columns (the vertical lines) and
// of its upper diagonals d >= max(1, w), each counted twice (the lower ones mirror them), plus the
// line of identity when w = 0. Every line is walked in tiles of 64 cells: a tile's cells become
// the bits of one word, whose runs are counted with count-trailing-zeros, and the run still open at
// the tile's end is carried into the next tile, so lines crossing tile borders count once, whole.
// The plot is never stored. Θ(1.5 N^2 m) evaluations: N^2 for the columns, N^2 / 2 for the diagonals.
#pragma once

#include <cstdint>
#include <vector>

#include "problems/rqa/rqa.hpp"

namespace ema::rqa::lines {

/// Line-length histograms being filled: short lines in private arrays, lines longer than `cap`
/// added atomically to the shared result (they are rare), so threads can fill one each.
struct tally {
  static constexpr std::size_t cap = 1 << 16;
  std::vector<std::uint64_t> vertical, upper;           ///< index = length, up to min(N, cap)
  std::vector<std::uint64_t>* long_vertical = nullptr;  ///< the shared histograms, for lengths > cap
  std::vector<std::uint64_t>* long_upper = nullptr;
};

/// Columns [j0, j1), whole, into `t.vertical`.
void count_columns(const plot& p, std::size_t j0, std::size_t j1, tally& t);
/// Upper diagonals [d0, d1) (d >= max(1, w)) into `t.upper`.
void count_diagonals(const plot& p, std::size_t d0, std::size_t d1, tally& t);

/// The plot's histograms from its columns' histogram and its upper diagonals' (RR's cell counts
/// follow from them: every recurrent cell lies on exactly one vertical line).
histograms assemble(const plot& p, std::vector<std::uint64_t> vertical, const std::vector<std::uint64_t>& upper);

/// The first upper diagonal outside the window.
inline std::size_t first_diagonal(const plot& p) { return p.w > 1 ? p.w : 1; }

/// The whole plot as tasks: a caller runs run_task for every task in [0, tasks) with a tally from
/// make_tally() (one for exact-seq, one per thread for exact-omp) and adds the tallies.
struct plan {
  std::size_t tasks = 0;
  static constexpr std::size_t group = 8;  ///< lines per task (they share each tile of the series)
  std::size_t column_tasks = 0;
};
plan plan_for(const plot& p);
void run_task(const plot& p, const plan& pl, std::size_t task, tally& t);
tally make_tally(const plot& p, std::vector<std::uint64_t>& long_vertical, std::vector<std::uint64_t>& long_upper);
/// Adds a thread's tally into the shared histograms.
void add(const tally& t, std::vector<std::uint64_t>& vertical, std::vector<std::uint64_t>& upper);

}  // namespace ema::rqa::lines
