#include "problems/rqa/lines.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ema::rqa::lines {
namespace {

constexpr unsigned tile = 64;

/// The bits of one tile of a line: bit k is close(a0 + k, b0 + k * step), step 0 (a column: the
/// vector v_b0 against 64 consecutive ones) or 1 (a diagonal), for k < count.
template <unsigned Step>
std::uint64_t tile_bits(const plot& p, std::size_t a0, std::size_t b0, unsigned count) {
  if (count < tile) {  // the line's last tile: cell by cell (a whole tile would read past the series)
    std::uint64_t bits = 0;
    for (unsigned k = 0; k < count; ++k) bits |= static_cast<std::uint64_t>(p.close(a0 + k, b0 + k * Step)) << k;
    return bits;
  }
  // The distances of the 64 cells, component by component in plot::close's order (vectorised).
  alignas(16) double d[tile] = {};
  for (std::size_t c = 0; c < p.m; ++c) {
    const double* a = p.x + a0 + c * p.tau;
    const double* b = p.x + b0 + c * p.tau;
    if (p.norm == norm_kind::max) {
      for (unsigned k = 0; k < tile; ++k) {
        const double e = a[k] - b[k * Step];
        const double m = e < 0 ? -e : e;
        d[k] = m > d[k] ? m : d[k];
      }
    } else if (p.norm == norm_kind::manhattan) {
      for (unsigned k = 0; k < tile; ++k) {
        const double e = a[k] - b[k * Step];
        d[k] += e < 0 ? -e : e;
      }
    } else {
      for (unsigned k = 0; k < tile; ++k) {
        const double e = a[k] - b[k * Step];
        const double m = e < 0 ? -e : e;
        d[k] += m * m;
      }
    }
  }
  std::uint64_t bits = 0;
#if defined(__SSE2__)
  const __m128d limit = _mm_set1_pd(p.limit);
  for (unsigned k = 0; k < tile; k += 2)
    bits |= static_cast<std::uint64_t>(_mm_movemask_pd(_mm_cmplt_pd(_mm_load_pd(d + k), limit))) << k;
#else
  for (unsigned k = 0; k < tile; ++k) bits |= static_cast<std::uint64_t>(d[k] < p.limit) << k;
#endif
  return bits;
}

void add_line(std::vector<std::uint64_t>& mine, std::vector<std::uint64_t>* shared, std::uint32_t length) {
  if (length < mine.size()) ++mine[length];
  else std::atomic_ref<std::uint64_t>((*shared)[length]).fetch_add(1, std::memory_order_relaxed);
}

/// Adds the runs of the `count` cells in `bits` to the line whose open run is `run`: runs closed
/// inside the tile are counted, the one reaching its end stays open.
void add_runs(std::uint64_t bits, unsigned count, std::uint32_t& run, std::vector<std::uint64_t>& mine,
              std::vector<std::uint64_t>* shared) {
  if (count < tile) bits &= (std::uint64_t{1} << count) - 1;
  unsigned pos = 0;
  while (pos < count) {
    const std::uint64_t rest = bits >> pos;
    if (rest & 1) {
      const unsigned ones = static_cast<unsigned>(std::countr_one(rest));
      const unsigned take = std::min(ones, count - pos);
      run += take;
      pos += take;
    } else {
      if (run) add_line(mine, shared, run), run = 0;
      if (!rest) break;
      pos += static_cast<unsigned>(std::countr_zero(rest));
    }
  }
}

}  // namespace

void count_columns(const plot& p, std::size_t j0, std::size_t j1, tally& t) {
  std::uint32_t run[plan::group] = {};
  for (std::size_t i0 = 0; i0 < p.N; i0 += tile) {
    const auto count = static_cast<unsigned>(std::min<std::size_t>(tile, p.N - i0));
    for (std::size_t j = j0; j < j1; ++j) {
      std::uint64_t bits = tile_bits<0>(p, i0, j, count);
      if (p.w) {  // the window's rows |i - j| < w are not recurrent
        const std::size_t lo = std::max(i0, j + 1 >= p.w ? j + 1 - p.w : 0), hi = std::min(i0 + count, j + p.w);
        for (std::size_t i = lo; i < hi; ++i) bits &= ~(std::uint64_t{1} << (i - i0));
      }
      add_runs(bits, count, run[j - j0], t.vertical, t.long_vertical);
    }
  }
  for (std::size_t j = j0; j < j1; ++j)
    if (run[j - j0]) add_line(t.vertical, t.long_vertical, run[j - j0]);
}

void count_diagonals(const plot& p, std::size_t d0, std::size_t d1, tally& t) {
  std::uint32_t run[plan::group] = {};
  for (std::size_t i0 = 0; i0 + d0 < p.N; i0 += tile)
    for (std::size_t d = d0; d < d1 && i0 + d < p.N; ++d) {
      const auto count = static_cast<unsigned>(std::min<std::size_t>(tile, p.N - d - i0));
      add_runs(tile_bits<1>(p, i0, i0 + d, count), count, run[d - d0], t.upper, t.long_upper);
    }
  for (std::size_t d = d0; d < d1; ++d)
    if (run[d - d0]) add_line(t.upper, t.long_upper, run[d - d0]);
}

histograms assemble(const plot& p, std::vector<std::uint64_t> vertical, const std::vector<std::uint64_t>& upper) {
  const std::size_t N = p.N;
  histograms h;
  h.vertical = std::move(vertical);
  h.diagonal.assign(N + 1, 0);
  for (std::size_t l = 1; l <= N && l < upper.size(); ++l) h.diagonal[l] = 2 * upper[l];
  if (p.w == 0 && N && p.close(0, 0)) ++h.diagonal[N];  // the line of identity
  for (std::size_t l = 1; l <= N; ++l) h.recurrent += l * h.vertical[l];
  const std::uint64_t n = N, w = std::min<std::uint64_t>(p.w, n);
  const std::uint64_t window = w ? n + (w - 1) * (2 * n - w) : 0;  // N + 2 sum_{g<w} (N - g)
  h.cells = n * n - window;
  return h;
}

plan plan_for(const plot& p) {
  plan pl;
  pl.column_tasks = (p.N + plan::group - 1) / plan::group;
  const std::size_t first = first_diagonal(p), diagonals = p.N > first ? p.N - first : 0;
  pl.tasks = pl.column_tasks + (diagonals + plan::group - 1) / plan::group;
  return pl;
}

void run_task(const plot& p, const plan& pl, std::size_t task, tally& t) {
  if (task < pl.column_tasks) {
    const std::size_t j0 = task * plan::group;
    count_columns(p, j0, std::min(p.N, j0 + plan::group), t);
    return;
  }
  const std::size_t d0 = first_diagonal(p) + (task - pl.column_tasks) * plan::group;
  count_diagonals(p, d0, std::min(p.N, d0 + plan::group), t);
}

tally make_tally(const plot& p, std::vector<std::uint64_t>& long_vertical, std::vector<std::uint64_t>& long_upper) {
  tally t;
  const std::size_t size = std::min(p.N, tally::cap) + 1;
  t.vertical.assign(size, 0);
  t.upper.assign(size, 0);
  t.long_vertical = &long_vertical;
  t.long_upper = &long_upper;
  return t;
}

void add(const tally& t, std::vector<std::uint64_t>& vertical, std::vector<std::uint64_t>& upper) {
  for (std::size_t l = 0; l < t.vertical.size(); ++l) vertical[l] += t.vertical[l];
  for (std::size_t l = 0; l < t.upper.size(); ++l) upper[l] += t.upper[l];
}

}  // namespace ema::rqa::lines
