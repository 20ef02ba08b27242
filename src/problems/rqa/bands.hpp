// Exact line counting split into bands of rows that are counted independently (one per thread, or
// one per tile row of a GPU grid) and merged afterwards, with lines that cross a band border
// carried across, so the histograms are identical to one sweep's. Each band hands back, for every
// column and every diagonal: the run that starts at the band's first row (its "top": its length,
// and whether it runs through the whole band), the run still open at the band's last row (its
// "bottom"), and a histogram of the runs wholly inside. Merging in band order joins the previous
// band's bottom with the next band's top; a top that runs through the band extends the carry.
#pragma once

#include <cstdint>
#include <vector>

#include "problems/rqa/rqa.hpp"

namespace ema::rqa {

class band_counter {
 public:
  /// Rows [r0, r1) of an N x N plot.
  band_counter(std::size_t n, std::size_t r0, std::size_t r1);

  /// Adds cell (i, j), rows in order, columns in order within a row.
  void cell(std::size_t i, std::size_t j, bool r) {
    end(vertical_, j, r);
    end(diagonal_, j + n_ - 1 - i, r);
    if (r) ++recurrent_;
  }
  void count_cell_outside_window() { ++cells_; }
  /// Closes the band: open runs become bottoms (or full tops).
  void finish();

  struct lines {
    std::vector<std::uint32_t> open, top, bottom;
    std::vector<std::uint8_t> open_at_top, full;
    std::vector<std::uint64_t> hist;  // runs inside the band, by length
  };

  const lines& vertical() const { return vertical_; }
  const lines& diagonal() const { return diagonal_; }
  std::uint64_t recurrent() const { return recurrent_; }
  std::uint64_t cells() const { return cells_; }

 private:
  void end(lines& l, std::size_t k, bool r) {
    auto& len = l.open[k];
    if (r) {
      if (len == 0) l.open_at_top[k] = row_ == r0_;
      ++len;
      return;
    }
    if (len == 0) return;
    if (l.open_at_top[k]) l.top[k] = len;
    else ++l.hist[len];
    len = 0;
  }
  std::size_t n_, r0_, row_ = 0;
  lines vertical_, diagonal_;
  std::uint64_t recurrent_ = 0, cells_ = 0;

 public:
  /// The row of the cells that follow (set by the sweep at the start of each row).
  void begin_row(std::size_t i) { row_ = i; }
};

/// Counts rows [r0, r1) of the plot of `in` into `band` and closes it.
inline void count_rows(const input& in, band_counter& band, std::size_t r0, std::size_t r1) {
  const std::size_t N = in.vectors();
  for (std::size_t i = r0; i < r1; ++i) {
    band.begin_row(i);
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t gap = i > j ? i - j : j - i;
      if (gap >= in.s.theiler) band.count_cell_outside_window();
      band.cell(i, j, in.recurrent(i, j));
    }
  }
  band.finish();
}

/// Joins the bands (in row order) into the histograms of the whole plot.
histograms merge_bands(std::size_t n, const std::vector<band_counter>& bands);

}  // namespace ema::rqa
