// sort / radix-omp — ours, the fastest OpenMP sort we can make for these keys. From 2^18 keys, an
// MSD pass first (msd_sort below): the keys moved by their top digit into buckets of about 2^16
// keys, each then sorted by one thread alone inside its L2; where the keys are too skewed for the
// buckets to be shared among the threads, and below 2^18 keys, an LSD radix sort over the whole
// array, every pass in parallel, each thread on its own contiguous share of the keys: it counts the digits
// of its share, one thread turns the counts into where each thread's keys of each digit go
// (digit-major, then thread: the pass is stable), and each thread scatters its share. Against the
// comparison sorts (the source's quick-omp and merge-omp, and gnu-parallel): O(n) work a pass, no
// comparisons, two arrays of n keys.
//
// What the passes move is the cost (issue 33: bound by memory, not by operations), so:
// - 11-bit digits: 3 passes for 32-bit keys (11, 11, 10 bits), 6 for 64-bit, not 4 and 8 (also
//   where both arrays fit the last cache: 8-bit digits, whose 256 line buffers a thread live in L1,
//   were 13-20% slower at 2^22..2^26 on the H200 machine's 16 cores; launch.digit_bits sets it);
// - one read of the input counts every pass's digits (each thread's share of the input, so the
//   first pass's per-thread counts too) and tells which passes every key agrees on (skipped: sorted
//   data in a narrow range, few distinct keys), before anything moves;
// - the first pass reads the input itself (its keys made order-preserving as they are read) and
//   the last writes the output (turned back as written): no copy in or out;
// - the scatter goes through a cache line of buffer per digit and thread (write combining), and a
//   full line goes to memory with non-temporal stores: 2048 streams a thread would thrash the TLB
//   and read every line before writing it (read for ownership) — where the two arrays do not fit
//   the last cache; where they do, through the cache, which the next pass reads from.
// Floats are sorted by their bits made order-preserving (a negative's bits flipped, a positive's
// sign bit set); -0 sorts before +0, which compare equal, so the output is non-decreasing either way.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <omp.h>
#include <type_traits>
#include <unistd.h>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/registry.hpp"
#include "problems/sort/sort.hpp"

namespace ema::sort {
namespace {

constexpr int max_digit_bits = 11;
constexpr int max_digits = 1 << max_digit_bits;
constexpr std::size_t line_bytes = 64;

template <class K>
using bits_t = std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t>;

/// The key's bits, ordered as the keys are (unsigned keys as they are).
template <class K>
bits_t<K> ordered(K k) {
  if constexpr (std::is_floating_point_v<K>) {
    const auto b = std::bit_cast<std::uint32_t>(k);
    return b & 0x80000000u ? ~b : b | 0x80000000u;
  } else {
    return k;
  }
}

template <class K>
bits_t<K> from_ordered(bits_t<K> b) {
  if constexpr (std::is_floating_point_v<K>)
    return b & 0x80000000u ? b & 0x7fffffffu : ~b;
  else
    return b;
}

/// The launch settings: the digit's bits of the passes over the whole array, and whether an MSD
/// pass into cache-sized buckets comes first.
struct radix_launch {
  int digit_bits = max_digit_bits;
  int msd = 1;
  int bucket_bits = 16;
  static constexpr launch_field fields[] = {
      {"digit_bits", "bits of a digit of the passes over the whole array, 4 to 11 (ema: 11)", 4, max_digit_bits},
      {"msd",
       "1: a first pass on the top digit into cache-sized buckets, each then sorted by one thread; 0: LSD passes over the whole array only (ema: 1)",
       0, 1},
      {"bucket_bits", "the MSD pass's buckets hold about 2^bucket_bits keys each, 12 to 20 (ema: 16, inside a core's L2)", 12, 20},
  };
  std::array<int*, 3> members() { return {&digit_bits, &msd, &bucket_bits}; }
};

/// The passes over keys of `bits` bits: as few as digits of `digit_bits` allow, their widths as even as can be.
struct pass_plan {
  int count = 0;
  int shift[16] = {}, width[16] = {};
};

pass_plan passes_for(int bits, int digit_bits) {
  pass_plan p;
  p.count = (bits + digit_bits - 1) / digit_bits;
  for (int i = 0, at = 0; i < p.count; ++i) {
    p.width[i] = (bits - at + (p.count - i) - 1) / (p.count - i);
    p.shift[i] = at;
    at += p.width[i];
  }
  return p;
}

/// One thread's scatter of one pass: a cache line of buffer per digit, each flushed whole (with
/// non-temporal stores) once the keys bound for that line of the destination are all in it; the
/// lines at the ends of the thread's run of a digit, shared with its neighbours', with plain stores.
template <class U>
class line_scatter {
 public:
  static constexpr std::size_t per_line = line_bytes / sizeof(U);

  line_scatter() : lines_(max_digits), begin_(max_digits), pos_(max_digits) {}

  /// Starts a pass into `to`, this thread's keys of digit d going to positions from start[d]; whole
  /// lines past the caches (`stream`) or through them.
  void begin(U* to, const std::size_t* start, int digits, bool stream) {
    to_ = to;
    stream_ = stream;
    digits_ = digits;
    lead_ = (reinterpret_cast<std::uintptr_t>(to) % line_bytes) / sizeof(U);  // `to`'s offset in its first line
    for (int d = 0; d < digits; ++d) begin_[static_cast<std::size_t>(d)] = pos_[static_cast<std::size_t>(d)] = start[d];
  }

  void put(int d, U key) {
    auto& p = pos_[static_cast<std::size_t>(d)];
    const std::size_t slot = (p + lead_) % per_line;
    lines_[static_cast<std::size_t>(d)].keys[slot] = key;
    ++p;
    if (slot == per_line - 1) flush(d, p);
  }

  /// The partial lines left, then a fence for the non-temporal stores.
  void finish() {
    for (int d = 0; d < digits_; ++d)
      if (const std::size_t p = pos_[static_cast<std::size_t>(d)]; (p + lead_) % per_line != 0) flush(d, p);
#if defined(__SSE2__)
    _mm_sfence();
#endif
  }

 private:
  struct alignas(line_bytes) line {
    U keys[per_line];
  };

  /// Writes digit d's keys of the destination line that ends at position `end` (exclusive): from
  /// the line's start or this thread's first position of the digit, whichever is later.
  void flush(int d, std::size_t end) {
    const std::size_t in_line = (end + lead_) % per_line;
    const std::size_t back = in_line == 0 ? per_line : in_line;
    const std::size_t first = std::max(begin_[static_cast<std::size_t>(d)], end >= back ? end - back : 0);
    if (first >= end) return;
    const U* src = lines_[static_cast<std::size_t>(d)].keys;
    const std::size_t count = end - first;
    if (count == per_line && stream_) {  // a whole line of the destination, aligned: stream it past the caches
#if defined(__SSE2__)
      auto* dst = reinterpret_cast<__m128i*>(to_ + first);
      const auto* s = reinterpret_cast<const __m128i*>(src);
      for (std::size_t i = 0; i < line_bytes / 16; ++i) _mm_stream_si128(dst + i, _mm_load_si128(s + i));
#else
      std::memcpy(to_ + first, src, line_bytes);
#endif
    } else {
      std::memcpy(to_ + first, src + (first + lead_) % per_line, count * sizeof(U));
    }
  }

  std::vector<line> lines_;
  std::vector<std::size_t> begin_, pos_;
  U* to_ = nullptr;
  std::size_t lead_ = 0;
  int digits_ = 0;
  bool stream_ = true;
};

/// The last-level cache's bytes as the C library reads them (0 where it cannot tell).
std::size_t last_cache_bytes() {
  for (const int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE})
    if (const long b = sysconf(name); b > 0) return static_cast<std::size_t>(b);
  return 0;
}

/// The MSD path (issue 33: 2^24 keys sat at 1.13-1.28x IPS4o, bound by three scatters into shared
/// arrays, each behind a barrier): one pass on the top digit moves the keys into 2^b buckets of
/// about 2^16 keys (8 <= b <= 11), each of which one thread then sorts by LSD passes of 8-bit digits
/// inside its own L2 (256 counters and 256 destinations a pass, no barrier, no other core's lines).
constexpr std::size_t msd_min_keys = std::size_t{1} << 18;  ///< below, the LSD passes alone
constexpr int bucket_digit_bits = 8;
constexpr std::size_t bucket_small = 64;  ///< a bucket this small is sorted by comparisons

/// The top digit's bits: buckets of about 2^bucket_bits keys (2^16 by default: 256 KiB of 32-bit
/// keys, twice that with the room beside them, inside a core's L2), 8 to 11 bits.
int msd_bits_for(std::size_t n, int bucket_bits) { return std::clamp(static_cast<int>(std::bit_width((n - 1) >> bucket_bits)), 8, max_digit_bits); }

/// One thread's sort of one bucket: its keys (order-preserving bits) in `a[0..m)`, `b[0..m)` the
/// room beside them (the output's place); LSD passes of up to 8 bits over the low `bits` bits,
/// every pass's digits counted in one read and a pass whose digit every key shares skipped. The
/// keys end in `b`, made back into K's bits.
template <class K>
void sort_bucket(bits_t<K>* a, bits_t<K>* b, std::size_t m, int bits) {
  using U = bits_t<K>;
  if (m <= bucket_small) {
    std::sort(a, a + m);
    for (std::size_t i = 0; i < m; ++i) b[i] = from_ordered<K>(a[i]);
    return;
  }
  const auto plan = passes_for(bits, bucket_digit_bits);
  constexpr int digits = 1 << bucket_digit_bits;
  std::array<std::array<std::size_t, digits>, 8> counts{};
  for (std::size_t i = 0; i < m; ++i) {
    const U k = a[i];
    for (int p = 0; p < plan.count; ++p) ++counts[static_cast<std::size_t>(p)][(k >> plan.shift[p]) & (digits - 1)];
  }
  int active[8], moving = 0;
  for (int p = 0; p < plan.count; ++p)
    if (std::find(counts[static_cast<std::size_t>(p)].begin(), counts[static_cast<std::size_t>(p)].end(), m) ==
        counts[static_cast<std::size_t>(p)].end())
      active[moving++] = p;
  // The passes alternate between a and b and must end in b: with an even number of them, the keys
  // are copied into b first and the passes start there.
  U* from = a;
  U* to = b;
  if (moving % 2 == 0) {
    if (moving == 0) {
      for (std::size_t i = 0; i < m; ++i) b[i] = from_ordered<K>(a[i]);
      return;
    }
    std::memcpy(b, a, m * sizeof(U));
    std::swap(from, to);
  }
  std::array<std::size_t, digits> pos;
  for (int q = 0; q < moving; ++q) {
    const int p = active[q];
    const bool last = q + 1 == moving;
    std::size_t at = 0;
    for (int d = 0; d < digits; ++d) pos[static_cast<std::size_t>(d)] = at, at += counts[static_cast<std::size_t>(p)][static_cast<std::size_t>(d)];
    const int shift = plan.shift[p];
    if (last) {
      for (std::size_t i = 0; i < m; ++i) to[pos[(from[i] >> shift) & (digits - 1)]++] = from_ordered<K>(from[i]);
    } else {
      for (std::size_t i = 0; i < m; ++i) to[pos[(from[i] >> shift) & (digits - 1)]++] = from[i];
    }
    std::swap(from, to);
  }
}

/// What the MSD path did: the buckets it made (0: it did not run, the buckets being too uneven for
/// the threads to share: one over half a thread's share of the keys) and the threads.
struct msd_outcome {
  std::size_t buckets = 0;
  int passes = 0;  ///< the MSD pass and the buckets' LSD passes planned
  std::size_t largest = 0;
  int threads = 1;
};

/// The MSD path: sorts keys[0..n) into out, tmp as the buckets, when the top digit spreads the keys
/// evenly enough; else moves nothing and says so.
template <class K>
msd_outcome msd_sort(const K* keys, std::size_t n, bits_t<K>* tmp, bits_t<K>* out, bool stream, int bucket_bits) {
  using U = bits_t<K>;
  constexpr int key_bits = static_cast<int>(8 * sizeof(U));
  const int b = msd_bits_for(n, bucket_bits), shift = key_bits - b;
  const std::size_t buckets = std::size_t{1} << b;
  msd_outcome o;
  std::vector<std::vector<std::size_t>> counts, starts;
  std::vector<std::size_t> first(buckets + 1, 0);  // where each bucket starts in tmp
  bool even = false;
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp single
    {
      o.threads = nt;
      counts.assign(static_cast<std::size_t>(nt), std::vector<std::size_t>(buckets, 0));
      starts.assign(static_cast<std::size_t>(nt), std::vector<std::size_t>(buckets, 0));
    }
    const std::size_t lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(nt);
    const std::size_t hi = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(nt);
    auto& mine = counts[static_cast<std::size_t>(t)];
    for (std::size_t i = lo; i < hi; ++i) ++mine[static_cast<std::size_t>(ordered(keys[i]) >> shift)];
#pragma omp barrier
#pragma omp single
    {
      std::size_t at = 0;
      for (std::size_t d = 0; d < buckets; ++d) {
        first[d] = at;
        for (std::size_t u = 0; u < counts.size(); ++u) starts[u][d] = at, at += counts[u][d];
        o.largest = std::max(o.largest, at - first[d]);
      }
      first[buckets] = at;
      even = 2 * o.largest * static_cast<std::size_t>(nt) <= n;
    }  // the single's barrier publishes `even`, `starts` and `first`
    if (even) {
      line_scatter<U> scatter;
      scatter.begin(tmp, starts[static_cast<std::size_t>(t)].data(), static_cast<int>(buckets), stream);
      for (std::size_t i = lo; i < hi; ++i) {
        const U k = ordered(keys[i]);
        scatter.put(static_cast<int>(k >> shift), k);
      }
      scatter.finish();
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t d = 0; d < static_cast<std::int64_t>(buckets); ++d) {
        const auto at = first[static_cast<std::size_t>(d)], m = first[static_cast<std::size_t>(d) + 1] - at;
        sort_bucket<K>(tmp + at, out + at, m, shift);
      }
    }
  }
  if (even) o.buckets = buckets, o.passes = 1 + passes_for(shift, bucket_digit_bits).count;
  return o;
}

template <class K>
struct lsd {
  static output run(const input& in, run_context& ctx) {
    using U = bits_t<K>;
    const std::size_t n = in.n;
    host_array<U> tmp(n, host_memory_kind::pageable);
    host_array<K> out(n, host_memory_kind::pageable);
    static_assert(sizeof(K) == sizeof(U));
    int threads = 1, moved = 0;
    // Non-temporal stores only where the source and destination do not fit the last cache: where
    // they do, the next pass reads what this one wrote from the cache (at 2^24 keys on a 300 MiB
    // L3, streaming past it cost 15-30%). 32 MiB where the cache's size is unknown.
    const std::size_t cache = last_cache_bytes();
    const bool stream = 2 * n * sizeof(U) > (cache ? cache : std::size_t{32} << 20);
    const auto l = ctx.launch(radix_launch{});
    const auto plan = passes_for(static_cast<int>(8 * sizeof(U)), l.digit_bits);
    msd_outcome first;
    {
      host_phase kernel(ctx, "kernel");
      const K* keys = in.keys<K>();
      if (l.msd && n >= msd_min_keys) first = msd_sort<K>(keys, n, tmp.data(), reinterpret_cast<U*>(out.data()), stream, l.bucket_bits);
      if (first.buckets) {
        threads = first.threads;
        moved = first.passes;
      } else {
        lsd_passes(keys, n, tmp.data(), out, stream, plan, threads, moved);
      }
    }
    ctx.note("threads", threads);
    ctx.note("passes", moved);
    ctx.note("stores", stream ? "non-temporal" : "cached");
    ctx.note("msd_buckets", static_cast<std::int64_t>(first.buckets));
    if (l.msd && n >= msd_min_keys && !first.buckets)
      ctx.note("msd_refused", fmt::format("the largest bucket held {} of the {} keys, over half a thread's share", first.largest, n));
    ctx.processors(threads);
    return owned(std::move(out));
  }

  /// The LSD passes over the whole array, every thread on its own share of each.
  static void lsd_passes(const K* keys, std::size_t n, bits_t<K>* tmp_data, host_array<K>& out, bool stream, const pass_plan& plan, int& threads,
                         int& moved) {
    using U = bits_t<K>;
    {
      // counts[t][pass][digit]: thread t's keys of each digit, over its share of the input (every
      // pass), then over its share of the pass's source (the passes after the first that moves).
      std::vector<std::vector<std::size_t>> counts;
      std::vector<std::vector<std::size_t>> starts;
      std::vector<int> active;  // the passes that move keys, in order
#pragma omp parallel
      {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp single
        {
          threads = nt;
          counts.assign(static_cast<std::size_t>(nt), std::vector<std::size_t>(static_cast<std::size_t>(plan.count) * max_digits, 0));
          starts.assign(static_cast<std::size_t>(nt), std::vector<std::size_t>(max_digits, 0));
        }
        const std::size_t lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(nt);
        const std::size_t hi = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(nt);
        auto& mine = counts[static_cast<std::size_t>(t)];
        for (std::size_t i = lo; i < hi; ++i) {
          const U k = ordered(keys[i]);
          for (int p = 0; p < plan.count; ++p)
            ++mine[static_cast<std::size_t>(p) * max_digits + ((k >> plan.shift[p]) & ((U{1} << plan.width[p]) - 1))];
        }
#pragma omp barrier
#pragma omp single
        {
          // A pass whose digit every key shares moves nothing.
          for (int p = 0; p < plan.count; ++p) {
            bool all_one = false;
            for (int d = 0; d < (1 << plan.width[p]) && !all_one; ++d) {
              std::size_t of_digit = 0;
              for (const auto& c : counts) of_digit += c[static_cast<std::size_t>(p) * max_digits + static_cast<std::size_t>(d)];
              all_one = of_digit == n;
            }
            if (!all_one) active.push_back(p);
          }
          moved = static_cast<int>(active.size());
        }
        line_scatter<U> scatter;
        const U* from = nullptr;  // nullptr: the input itself (made order-preserving as read)
        for (std::size_t a = 0; a < active.size(); ++a) {
          const int p = active[a];
          const int digits = 1 << plan.width[p];
          const U mask = static_cast<U>(digits - 1);
          const int shift = plan.shift[p];
          const bool last = a + 1 == active.size();
          // tmp and out in turn, so that the last pass writes the output (and the first reads the input).
          U* to = (active.size() - 1 - a) % 2 == 0 ? reinterpret_cast<U*>(out.data()) : tmp_data;
          if (a > 0) {  // this share of the source is not the input's: count it
            std::fill(mine.begin(), mine.begin() + digits, 0);
            for (std::size_t i = lo; i < hi; ++i) ++mine[(from[i] >> shift) & mask];
#pragma omp barrier
          }
          const std::size_t row = a > 0 ? 0 : static_cast<std::size_t>(p) * max_digits;
#pragma omp single
          {
            // Digit-major, then thread: each thread's keys of a digit after the lower threads'.
            std::size_t at = 0;
            for (int d = 0; d < digits; ++d)
              for (std::size_t u = 0; u < counts.size(); ++u) {
                starts[u][static_cast<std::size_t>(d)] = at;
                at += counts[u][row + static_cast<std::size_t>(d)];
              }
          }  // the single's implicit barrier publishes `starts`
          scatter.begin(to, starts[static_cast<std::size_t>(t)].data(), digits, stream);
          if (from == nullptr) {
            for (std::size_t i = lo; i < hi; ++i) {
              const U k = ordered(keys[i]);
              scatter.put(static_cast<int>((k >> shift) & mask), last ? from_ordered<K>(k) : k);
            }
          } else {
            for (std::size_t i = lo; i < hi; ++i) {
              const U k = from[i];
              scatter.put(static_cast<int>((k >> shift) & mask), last ? from_ordered<K>(k) : k);
            }
          }
          scatter.finish();
#pragma omp barrier
          from = to;
        }
        if (active.empty() && hi > lo) std::memcpy(out.data() + lo, keys + lo, (hi - lo) * sizeof(K));  // every key the same
      }
    }
  }
};

output run(const input& in, run_context& ctx) { return run_typed<lsd>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_radix_omp,
            ema::sort::kit::variant<&ema::sort::run>({
                .name = "radix-omp",
                .algorithm = "radix",
                .backend = ema::backend::omp,
                .role = ema::variant_role::ours,
                .description = "ours: an MSD pass into buckets of ~2^16 keys, each sorted by one thread with 8-bit LSD passes in its L2; "
                               "skewed keys: LSD passes of 11-bit digits over the whole array, every thread on its share (stable)",
                .provenance = "ours",
                .launch = ema::sort::radix_launch::fields,
            }));
