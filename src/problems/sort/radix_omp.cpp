// sort / radix-omp — ours, the fastest OpenMP sort we can make for these keys: an LSD radix sort,
// 8 bits a pass (4 passes for u32 and f32, 8 for u64), every pass in parallel: each thread counts
// the digits of its own contiguous share of the keys, one thread turns the counts into where each
// thread's keys of each digit go (digit-major, then thread: the pass is stable), and each thread
// scatters its share. A pass whose digit is the same for every key is skipped (sorted data in a
// narrow range, few distinct keys). Floats are sorted by their bits made order-preserving (a
// negative's bits flipped, a positive's sign bit set), and turned back at the end; -0 sorts before
// +0, which compare equal, so the output is non-decreasing either way.
// Against the comparison sorts (the source's quick-omp and merge-omp, and gnu-parallel): O(n) work
// per pass, no comparisons, two arrays of n keys; each pass streams the keys in and scatters them
// out to 256 places per thread.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <omp.h>
#include <type_traits>
#include <vector>

#include "core/registry.hpp"
#include "problems/sort/sort.hpp"

namespace ema::sort {
namespace {

constexpr int digit_bits = 8;
constexpr int digits = 1 << digit_bits;

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
K from_ordered(bits_t<K> b) {
  if constexpr (std::is_floating_point_v<K>)
    return std::bit_cast<K>(b & 0x80000000u ? b & 0x7fffffffu : ~b);
  else
    return b;
}

template <class K>
struct lsd {
  static output run(const input& in, run_context& ctx) {
    using U = bits_t<K>;
    const std::size_t n = in.n;
    host_array<U> a(n, host_memory_kind::pageable), b(n, host_memory_kind::pageable);
    host_array<K> out(n, host_memory_kind::pageable);
    int threads = 1, passes = 0;
    {
      host_phase kernel(ctx, "kernel");
      const K* keys = in.keys<K>();
      std::vector<std::array<std::size_t, digits>> where;
      bool skip = false;
#pragma omp parallel
      {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp single
        {
          threads = nt;
          where.resize(static_cast<std::size_t>(nt));
        }
        // A contiguous share per thread, the same in every pass (its pages first touched by it).
        const std::size_t lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(nt);
        const std::size_t hi = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(nt);
        for (std::size_t i = lo; i < hi; ++i) a[i] = ordered(keys[i]);
        U* from = a.data();
        U* to = b.data();
        for (int shift = 0; shift < static_cast<int>(8 * sizeof(U)); shift += digit_bits) {
          auto& mine = where[static_cast<std::size_t>(t)];
          mine.fill(0);
          for (std::size_t i = lo; i < hi; ++i) ++mine[(from[i] >> shift) & (digits - 1)];
#pragma omp barrier
#pragma omp single
          {
            // Digit-major, then thread: each thread's keys of a digit after the lower threads'.
            std::size_t at = 0;
            skip = false;
            for (int d = 0; d < digits; ++d) {
              std::size_t of_digit = 0;
              for (auto& w : where) {
                const std::size_t c = w[static_cast<std::size_t>(d)];
                w[static_cast<std::size_t>(d)] = at;
                at += c;
                of_digit += c;
              }
              if (of_digit == n) skip = true;
            }
            if (!skip) ++passes;
          }  // the single's implicit barrier publishes `where` and `skip`
          if (skip) continue;
          for (std::size_t i = lo; i < hi; ++i) {
            const U k = from[i];
            to[mine[(k >> shift) & (digits - 1)]++] = k;
          }
#pragma omp barrier
          std::swap(from, to);
        }
        for (std::size_t i = lo; i < hi; ++i) out[i] = from_ordered<K>(from[i]);
      }
    }
    ctx.note("threads", threads);
    ctx.note("passes", passes);
    ctx.processors(threads);
    return owned(std::move(out));
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
                .description = "ours: LSD radix sort, 8 bits a pass, each pass counted and scattered by every thread on its share (stable)",
                .provenance = "ours",
            }));
