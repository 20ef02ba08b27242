// rqa / exact-cuda — the exact quantifiers on the GPU, the plot never stored: the lines of
// lines.hpp (every column whole; the upper diagonals, mirrored), a thread per line walking it 32
// cells at a time: the cells tested into a word of bits (no branch a cell; for m = 1 the column's
// own value held in a register), then the word's runs found by bit scans, with the open run carried
// in a register from word to word, so a line is carried across every tile of rows it crosses and
// the histograms are exactly exact-seq's. Two kernels: `columns` (a thread per column j; the row's
// value is the same for the whole warp, one broadcast load) and `diagonals` (a thread per diagonal
// d, consecutive d read consecutive memory). Lines end in three tiers of counters: lengths up to 16
// in per-thread shared-memory bins (no atomics), up to 1024 in the block's shared bins (shared
// atomics), longer ones straight to the global histogram; the block adds its bins to the global
// histograms at the end. Ours (the exact quantities Froguel, 000_d2722dce0c10bad2.txt estimates).
#include <array>
#include <string>
#include <cstdint>
#include <type_traits>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/rqa/device.cuh"
#include "problems/rqa/lines.hpp"

namespace ema::rqa {
namespace {

constexpr unsigned block = 256;

/// A thread per column and per upper diagonal, in blocks of `threads` (core/launch.hpp).
struct exact_launch {
  int threads = block;
  static constexpr launch_field fields[] = {
      {"threads", "threads per block, a column or diagonal each (fixed at 256: the block's shared histogram bins)", block, block}};
  std::array<int*, 1> members() { return {&threads}; }
};
constexpr unsigned small = 16;  // lengths 1..small: a bin per thread
constexpr unsigned mid = 1024;  // lengths small+1..mid: the block's bins

struct bins {
  std::uint32_t own[small][block];
  std::uint32_t shared[mid + 1];
};

__device__ void clear(bins& b) {
  for (unsigned k = threadIdx.x; k < small * block; k += block) (&b.own[0][0])[k] = 0;
  for (unsigned k = threadIdx.x; k <= mid; k += block) b.shared[k] = 0;
  __syncthreads();
}

__device__ __forceinline__ void record(bins& b, unsigned long long* hist, std::uint64_t len) {
  if (len <= small)
    ++b.own[len - 1][threadIdx.x];
  else if (len <= mid)
    atomicAdd(&b.shared[len], 1u);
  else
    atomicAdd(hist + len, 1ull);
}

__device__ void flush(bins& b, unsigned long long* hist) {
  __syncthreads();
  for (unsigned l = threadIdx.x; l < small; l += block) {
    unsigned long long sum = 0;
    for (unsigned t = 0; t < block; ++t) sum += b.own[l][t];
    if (sum) atomicAdd(hist + l + 1, sum);
  }
  for (unsigned l = small + 1 + threadIdx.x; l <= mid; l += block)
    if (b.shared[l]) atomicAdd(hist + l, static_cast<unsigned long long>(b.shared[l]));
}

/// The runs of one 32-cell word of a line (bit k: cell k of the word recurrent; `len` valid bits,
/// the bits past them 0): the open run is extended through the word's leading ones, every run the
/// word closes is recorded, the run still open at its end is carried out in `run`. Runs of 1 to 4
/// cells closed inside the word are counted by popcounts of their patterns (a start, l - 1 ones,
/// a zero), as the CPU walk does; longer ones and the last are found by bit scans, one round each.
__device__ __forceinline__ void runs_of_word(std::uint32_t bits, int len, std::uint64_t& run, bins& b, unsigned long long* hist) {
  if (bits == 0xffffffffu) {  // the common case inside a long line: one add
    run += 32;
    return;
  }
  const std::uint64_t all = bits;  // 64 bits wide: shifts by up to 32 stay defined
  int pos = 0;
  if (run) {  // the run carried in: its leading ones, then it ends or goes on
    const int ones = __ffsll(static_cast<long long>(~all)) - 1;
    if (ones >= len) {
      run += static_cast<std::uint64_t>(len);
      return;
    }
    record(b, hist, run + static_cast<std::uint64_t>(ones));
    run = 0;
    pos = ones;
  }
  const std::uint64_t w = all & (~std::uint64_t{0} << pos);  // the rest of the word (bit pos is 0, or pos = 0)
  if (w == 0) return;
  std::uint64_t starts = w & ~(w << 1);
  // A run of l cells starting at s closes inside the word when bit s + l is a zero of it: s + l < len.
  const std::uint64_t w1 = w >> 1, w2 = w >> 2, w3 = w >> 3, w4 = w >> 4;
  const auto below = [&](int l) { return (std::uint64_t{1} << (len - l > 0 ? len - l : 0)) - 1; };
  const std::uint64_t r1 = starts & ~w1 & below(1), r2 = starts & w1 & ~w2 & below(2), r3 = starts & w1 & w2 & ~w3 & below(3),
                      r4 = starts & w1 & w2 & w3 & ~w4 & below(4);
  if (r1) b.own[0][threadIdx.x] += __popcll(r1);
  if (r2) b.own[1][threadIdx.x] += __popcll(r2);
  if (r3) b.own[2][threadIdx.x] += __popcll(r3);
  if (r4) b.own[3][threadIdx.x] += __popcll(r4);
  starts &= ~(r1 | r2 | r3 | r4);
  while (starts) {  // the longer runs and the one reaching the word's end: one round each
    const int at = __ffsll(static_cast<long long>(starts)) - 1;
    starts &= starts - 1;
    const int ones = __ffsll(static_cast<long long>(~(all >> at))) - 1;
    if (at + ones >= len) {  // it reaches the word's end: carried out
      run = static_cast<std::uint64_t>(ones);
      return;
    }
    record(b, hist, static_cast<std::uint64_t>(ones));
  }
}

/// Cells (i, j + i * step) for i in [from, to) of a line (step 0: column j, the cells (i, j);
/// step 1: diagonal j, the cells (i, i + j)) tested 32 at a time into a word of bits, then
/// the word's runs counted with bit scans: no branch a cell, and a warp's lanes diverge once a
/// word instead of once a cell.
template <norm_kind K, bool M1>
__device__ __forceinline__ void walk(const plot& p, std::uint32_t j, std::uint32_t step, std::uint32_t from, std::uint32_t to, std::uint64_t& run,
                                     bins& b, unsigned long long* hist) {
  const double xj = p.x[j];
  for (std::uint32_t i0 = from; i0 < to; i0 += 32) {
    const int len = to - i0 < 32u ? static_cast<int>(to - i0) : 32;
    std::uint32_t bits = 0;
    if (len == 32) {
#pragma unroll
      for (int k = 0; k < 32; ++k) {
        const std::uint32_t i = i0 + k, jj = j + i * step;
        bool close;
        if constexpr (M1) {
          const double xi = p.x[i], xo = step ? p.x[jj] : xj;
          close = distance<K>(&xi, &xo, 1, 0) < p.limit;
        } else {
          close = p.close_as<K>(i, jj);
        }
        bits |= static_cast<std::uint32_t>(close) << k;
      }
    } else {
      for (int k = 0; k < len; ++k) {
        const std::uint32_t i = i0 + k, jj = j + i * step;
        bits |= static_cast<std::uint32_t>(p.close_as<K>(i, jj)) << k;
      }
    }
    runs_of_word(bits, len, run, b, hist);
  }
}

template <norm_kind K, bool M1>
__global__ void __launch_bounds__(block) columns(plot p, unsigned long long* hist) {
  __shared__ bins b;
  clear(b);
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * block + threadIdx.x;
  if (j < p.N) {
    const auto n = static_cast<std::uint32_t>(p.N), c = static_cast<std::uint32_t>(j);
    std::uint64_t run = 0;
    if (p.w == 0) {
      walk<K, M1>(p, c, 0, 0, n, run, b, hist);
    } else {  // above the window, then below it: the window's cells end a line
      walk<K, M1>(p, c, 0, 0, j + 1 >= p.w ? static_cast<std::uint32_t>(j + 1 - p.w) : 0u, run, b, hist);
      if (run) record(b, hist, run), run = 0;
      walk<K, M1>(p, c, 0, j + p.w < p.N ? static_cast<std::uint32_t>(j + p.w) : n, n, run, b, hist);
    }
    if (run) record(b, hist, run);
  }
  flush(b, hist);
}

template <norm_kind K, bool M1>
__global__ void __launch_bounds__(block) diagonals(plot p, std::size_t first, unsigned long long* hist) {
  __shared__ bins b;
  clear(b);
  const std::size_t d = first + static_cast<std::size_t>(blockIdx.x) * block + threadIdx.x;
  if (d < p.N) {
    std::uint64_t run = 0;
    walk<K, M1>(p, static_cast<std::uint32_t>(d), 1, 0, static_cast<std::uint32_t>(p.N - d), run, b, hist);
    if (run) record(b, hist, run);
  }
  flush(b, hist);
}

output exact_cuda(const input& in, run_context& ctx) {
  cuda::session gpu(ctx);
  const device_series dev(gpu, in);
  const plot& p = dev.p;
  const std::size_t N = p.N, first = lines::first_diagonal(p), diagonals_count = N > first ? N - first : 0;
  if (N > 0xffffffffull) throw usage_error("rqa exact-cuda: at most 2^32 - 1 vectors (32-bit cell indices), got N = " + std::to_string(N));
  auto* hist = gpu.alloc<unsigned long long>(2 * (N + 1));
  unsigned long long* vertical = hist;
  unsigned long long* upper = hist + N + 1;
  ctx.launch(exact_launch{});
  ctx.note("column_blocks", static_cast<std::int64_t>(grid_for(N, block)));
  ctx.note("diagonal_blocks", static_cast<std::int64_t>(grid_for(diagonals_count, block)));
  dev.upload(gpu, in);
  {
    auto kernel = gpu.phase("kernel");
    gpu.fill_bytes(hist, 0, 2 * (N + 1));
    if (N) {
      with_norm(p.norm, [&](auto k) {
        constexpr norm_kind K = decltype(k)::value;
        auto launch = [&](auto m1) {
          constexpr bool M1 = decltype(m1)::value;
          columns<K, M1><<<grid_for(N, block), block, 0, gpu.stream()>>>(p, vertical);
          EMA_CUDA_CHECK_LAUNCH();
          if (diagonals_count) {
            diagonals<K, M1><<<grid_for(diagonals_count, block), block, 0, gpu.stream()>>>(p, first, upper);
            EMA_CUDA_CHECK_LAUNCH();
          }
        };
        if (p.m == 1)
          launch(std::true_type{});
        else
          launch(std::false_type{});
      });
    }
  }
  std::vector<std::uint64_t> v(N + 1), u(N + 1);
  {
    auto d2h = gpu.phase("d2h");
    gpu.download(reinterpret_cast<unsigned long long*>(v.data()), vertical, v.size());
    gpu.download(reinterpret_cast<unsigned long long*>(u.data()), upper, u.size());
  }
  gpu.finish();
  plot host = in.view();
  return {lines::assemble(host, std::move(v), u)};
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_exact_cuda,
            ema::rqa::kit::variant<&ema::rqa::exact_cuda>({
                .name = "exact-cuda",
                .algorithm = "exact",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::ours,
                .description = "exact quantifiers on the GPU: a thread per column and per upper diagonal, 32 cells a word of bits, runs by bit scans",
                .provenance = "ours (the exact quantities 000_d2722dce0c10bad2.txt estimates)",
                .launch = ema::rqa::exact_launch::fields,
            }));
