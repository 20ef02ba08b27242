#include "problems/rqa/lines.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "core/launch.hpp"

namespace ema::rqa::lines {
namespace {

constexpr unsigned tile = 64;

// The line walks are compiled three times, for x86-64-v4 (AVX-512), x86-64-v3 (AVX2, POPCNT, BMI) and
// the baseline, and the
// processor picks one when the program loads (GCC's target_clones).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EMA_RQA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EMA_RQA_CLONES
#endif

// Scalar series (m = 1), the common case: a tile is |a_k - b| (or its square, for the Euclidean
// norm) against the limit, 8 or 4 cells per instruction with the compare going straight to a mask.
// |e| by clearing the sign bit compares exactly as plot::close's (e < 0 ? -e : e) does (they differ
// only on -0, and both are below the limit or neither), and 0 + |e| (the norms' first step) is |e|.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define EMA_RQA_SCALAR_TILES 1

template <unsigned Step>
[[gnu::target("avx512f")]] std::uint64_t scalar_tile_avx512(const double* a, const double* b, double limit, bool square) {
  const __m512d lim = _mm512_set1_pd(limit), one = _mm512_set1_pd(*b);
  std::uint64_t bits = 0;
  for (unsigned k = 0; k < 64; k += 8) {
    const __m512d e = _mm512_sub_pd(_mm512_loadu_pd(a + k), Step ? _mm512_loadu_pd(b + k) : one);
    __m512d m = _mm512_abs_pd(e);
    if (square) m = _mm512_mul_pd(m, m);
    bits |= static_cast<std::uint64_t>(_mm512_cmp_pd_mask(m, lim, _CMP_LT_OQ)) << k;
  }
  return bits;
}

template <unsigned Step>
[[gnu::target("avx2")]] std::uint64_t scalar_tile_avx2(const double* a, const double* b, double limit, bool square) {
  const __m256d lim = _mm256_set1_pd(limit), one = _mm256_set1_pd(*b), sign = _mm256_set1_pd(-0.0);
  std::uint64_t bits = 0;
  for (unsigned k = 0; k < 64; k += 4) {
    const __m256d e = _mm256_sub_pd(_mm256_loadu_pd(a + k), Step ? _mm256_loadu_pd(b + k) : one);
    __m256d m = _mm256_andnot_pd(sign, e);
    if (square) m = _mm256_mul_pd(m, m);
    bits |= static_cast<std::uint64_t>(_mm256_movemask_pd(_mm256_cmp_pd(m, lim, _CMP_LT_OQ))) << k;
  }
  return bits;
}

template <unsigned Step>
using scalar_tile_fn = std::uint64_t (*)(const double*, const double*, double, bool);

/// The widest of the two the processor has, or null (then the generic loops below).
template <unsigned Step>
scalar_tile_fn<Step> scalar_tile() {
  static const scalar_tile_fn<Step> f = __builtin_cpu_supports("avx512f") ? &scalar_tile_avx512<Step>
                                        : __builtin_cpu_supports("avx2")  ? &scalar_tile_avx2<Step>
                                                                          : nullptr;
  return f;
}
#endif

/// The bits of one tile of a line: bit k is close(a0 + k, b0 + k * Step), Step 0 (a column: the
/// vector v_b0 against 64 consecutive ones) or 1 (a diagonal), for k < count. A full tile computes
/// its 64 distances component by component in plot::close's order (vectorised loops; the first
/// component assigns, which compares the same as 0 combined with it), then compares them.
template <unsigned Step>
[[gnu::always_inline]] inline std::uint64_t tile_bits(const plot& p, std::size_t a0, std::size_t b0, unsigned count) {
  if (count < tile) {  // the line's last tile: cell by cell (a whole tile would read past the series)
    std::uint64_t bits = 0;
    for (unsigned k = 0; k < count; ++k) bits |= static_cast<std::uint64_t>(p.close(a0 + k, b0 + k * Step)) << k;
    return bits;
  }
#ifdef EMA_RQA_SCALAR_TILES
  if (p.m == 1)
    if (const auto f = scalar_tile<Step>()) return f(p.x + a0, p.x + b0, p.limit, p.norm == norm_kind::euclidean);
#endif
  alignas(32) double d[tile];
  for (std::size_t c = 0; c < p.m; ++c) {
    const double* a = p.x + a0 + c * p.tau;
    const double* b = p.x + b0 + c * p.tau;
    if (p.norm == norm_kind::euclidean) {
      for (unsigned k = 0; k < tile; ++k) {
        const double e = a[k] - b[k * Step], m = e < 0 ? -e : e;
        d[k] = c ? d[k] + m * m : m * m;
      }
    } else if (p.norm == norm_kind::manhattan) {
      for (unsigned k = 0; k < tile; ++k) {
        const double e = a[k] - b[k * Step], m = e < 0 ? -e : e;
        d[k] = c ? d[k] + m : m;
      }
    } else {
      for (unsigned k = 0; k < tile; ++k) {
        const double e = a[k] - b[k * Step], m = e < 0 ? -e : e;
        d[k] = c ? (m > d[k] ? m : d[k]) : m;
      }
    }
  }
  // The comparisons as bytes (a vectorised loop), then 8 bytes of 0/1 to 8 bits by one multiply:
  // byte i times 2^(56 - 7i) lands on bit 56 + i, and no two other products meet.
  alignas(8) unsigned char r[tile];
  for (unsigned k = 0; k < tile; ++k) r[k] = d[k] < p.limit;
  std::uint64_t bits = 0;
  for (unsigned g = 0; g < tile / 8; ++g) {
    std::uint64_t w;
    std::memcpy(&w, r + 8 * g, 8);
    bits |= ((w * 0x0102040810204080ull) >> 56) << (8 * g);
  }
  return bits;
}

/// A histogram being filled: its short part (the tally's own, held in locals so that the
/// increments need not reload the vector) and the shared one for longer lines.
struct sink {
  std::uint64_t* mine;
  std::size_t size;
  std::vector<std::uint64_t>* shared;
  [[gnu::always_inline]] void add(std::uint64_t length, std::uint64_t count = 1) const {
    if (length < size)
      mine[length] += count;
    else
      std::atomic_ref<std::uint64_t>((*shared)[length]).fetch_add(count, std::memory_order_relaxed);
  }
};

/// Adds the runs of the `count` cells in `bits` to the line whose open run is `run`: the run
/// touching the tile's first cell extends the open one; runs closed inside the tile are counted,
/// those of length 1 to 4 by population counts of bit patterns (0 1^l 0), longer ones one by one;
/// the run touching the tile's last cell stays open.
[[gnu::always_inline]] inline void add_runs(std::uint64_t bits, unsigned count, std::uint32_t& run, const sink& out) {
  if (count < tile) bits &= (std::uint64_t{1} << count) - 1;
  if (bits & 1) {
    const auto ones = static_cast<unsigned>(std::countr_one(bits));
    if (ones >= count) {
      run += count;
      return;
    }
    out.add(run + ones);
    bits &= ~((std::uint64_t{1} << ones) - 1);
  } else if (run) {
    out.add(run);
  }
  run = 0;
  if (!bits) return;
  if (bits >> (count - 1) & 1) {  // open at the end
    const auto ones = static_cast<unsigned>(std::countl_one(bits << (tile - count)));
    run = ones;
    bits &= (std::uint64_t{1} << (count - ones)) - 1;
  }
  if (!bits) return;
  const std::uint64_t starts = bits & ~(bits << 1), ends = bits & ~(bits >> 1);
  const std::uint64_t two = bits & (bits >> 1), three = two & (bits >> 2), four = three & (bits >> 3);
  const auto n1 = std::popcount(starts & ends), n2 = std::popcount(starts & (ends >> 1));
  const auto n3 = std::popcount(starts & (bits >> 1) & (ends >> 2)), n4 = std::popcount(starts & two & (bits >> 2) & (ends >> 3));
  if (n1) out.add(1, static_cast<std::uint64_t>(n1));
  if (n2) out.add(2, static_cast<std::uint64_t>(n2));
  if (n3) out.add(3, static_cast<std::uint64_t>(n3));
  if (n4) out.add(4, static_cast<std::uint64_t>(n4));
  for (std::uint64_t longer = starts & four & (bits >> 4); longer; longer &= longer - 1) {
    const auto s = static_cast<unsigned>(std::countr_zero(longer));
    out.add(static_cast<std::uint64_t>(std::countr_one(bits >> s)));
  }
}

}  // namespace

EMA_RQA_CLONES void count_columns(const plot& p, std::size_t j0, std::size_t j1, tally& t) {
  std::uint32_t run[plan::group] = {};
  const sink out{t.vertical.data(), t.vertical.size(), t.long_vertical};
  for (std::size_t i0 = 0; i0 < p.N; i0 += tile) {
    const auto count = static_cast<unsigned>(std::min<std::size_t>(tile, p.N - i0));
    for (std::size_t j = j0; j < j1; ++j) {
      std::uint64_t bits = tile_bits<0>(p, i0, j, count);
      if (p.w) {  // the window's rows |i - j| < w are not recurrent
        const std::size_t lo = std::max(i0, j + 1 >= p.w ? j + 1 - p.w : 0), hi = std::min(i0 + count, j + p.w);
        for (std::size_t i = lo; i < hi; ++i) bits &= ~(std::uint64_t{1} << (i - i0));
      }
      add_runs(bits, count, run[j - j0], out);
    }
  }
  for (std::size_t j = j0; j < j1; ++j)
    if (run[j - j0]) out.add(run[j - j0]);
}

EMA_RQA_CLONES void count_diagonals(const plot& p, std::size_t d0, std::size_t d1, tally& t) {
  std::uint32_t run[plan::group] = {};
  const sink out{t.upper.data(), t.upper.size(), t.long_upper};
  for (std::size_t i0 = 0; i0 + d0 < p.N; i0 += tile)
    for (std::size_t d = d0; d < d1 && i0 + d < p.N; ++d) {
      const auto count = static_cast<unsigned>(std::min<std::size_t>(tile, p.N - d - i0));
      add_runs(tile_bits<1>(p, i0, i0 + d, count), count, run[d - d0], out);
    }
  for (std::size_t d = d0; d < d1; ++d)
    if (run[d - d0]) out.add(run[d - d0]);
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
  pl.column_tasks = ceil_div(p.N, plan::group);
  const std::size_t first = first_diagonal(p), diagonals = p.N > first ? p.N - first : 0;
  pl.tasks = pl.column_tasks + ceil_div(diagonals, plan::group);
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
