// rqa / exact-cuda — the exact quantifiers on the GPU, the plot never stored: the lines of
// lines.hpp (every column whole; the upper diagonals, mirrored), a thread per line walking it cell
// by cell with its open run in a register, so a line is carried across every tile of rows it
// crosses and the histograms are exactly exact-seq's. Two kernels: `columns` (a thread per column j;
// the row's vector is the same for the whole warp, one broadcast load) and `diagonals` (a thread per
// diagonal d, consecutive d read consecutive memory). Lines end in three tiers of counters: lengths
// up to 16 in per-thread shared-memory bins (no atomics), up to 1024 in the block's shared bins
// (shared atomics), longer ones straight to the global histogram; the block adds its bins to the
// global histograms at the end. Ours (the exact quantities Froguel, 000_d2722dce0c10bad2.txt estimates).
#include <array>

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

/// Column j, rows [from, to): extends or ends the open run.
template <norm_kind K>
__device__ void walk_column(const plot& p, std::size_t j, std::size_t from, std::size_t to, std::uint64_t& run, bins& b, unsigned long long* hist) {
#pragma unroll 4
  for (std::size_t i = from; i < to; ++i) {
    if (p.close_as<K>(i, j)) {
      ++run;
    } else if (run) {
      record(b, hist, run);
      run = 0;
    }
  }
}

template <norm_kind K>
__global__ void __launch_bounds__(block) columns(plot p, unsigned long long* hist) {
  __shared__ bins b;
  clear(b);
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * block + threadIdx.x;
  if (j < p.N) {
    std::uint64_t run = 0;
    if (p.w == 0) {
      walk_column<K>(p, j, 0, p.N, run, b, hist);
    } else {  // above the window, then below it: the window's cells end a line
      walk_column<K>(p, j, 0, j + 1 >= p.w ? j + 1 - p.w : 0, run, b, hist);
      if (run) record(b, hist, run), run = 0;
      walk_column<K>(p, j, j + p.w < p.N ? j + p.w : p.N, p.N, run, b, hist);
    }
    if (run) record(b, hist, run);
  }
  flush(b, hist);
}

template <norm_kind K>
__global__ void __launch_bounds__(block) diagonals(plot p, std::size_t first, unsigned long long* hist) {
  __shared__ bins b;
  clear(b);
  const std::size_t d = first + static_cast<std::size_t>(blockIdx.x) * block + threadIdx.x;
  if (d < p.N) {
    std::uint64_t run = 0;
    const std::size_t length = p.N - d;
#pragma unroll 4
    for (std::size_t i = 0; i < length; ++i) {
      if (p.close_as<K>(i, i + d)) {
        ++run;
      } else if (run) {
        record(b, hist, run);
        run = 0;
      }
    }
    if (run) record(b, hist, run);
  }
  flush(b, hist);
}

output exact_cuda(const input& in, run_context& ctx) {
  cuda::session gpu(ctx);
  const device_series dev(gpu, in);
  const plot& p = dev.p;
  const std::size_t N = p.N, first = lines::first_diagonal(p), diagonals_count = N > first ? N - first : 0;
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
        columns<decltype(k)::value><<<grid_for(N, block), block, 0, gpu.stream()>>>(p, vertical);
        EMA_CUDA_CHECK_LAUNCH();
        if (diagonals_count) {
          diagonals<decltype(k)::value><<<grid_for(diagonals_count, block), block, 0, gpu.stream()>>>(p, first, upper);
          EMA_CUDA_CHECK_LAUNCH();
        }
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

EMA_VARIANT(rqa_exact_cuda, ema::rqa::kit::variant<&ema::rqa::exact_cuda>({
                                .name = "exact-cuda",
                                .algorithm = "exact",
                                .backend = ema::backend::cuda,
                                .role = ema::variant_role::ours,
                                .description = "exact quantifiers on the GPU: a thread per column and per upper diagonal, runs in registers",
                                .provenance = "ours (the exact quantities 000_d2722dce0c10bad2.txt estimates)",
                                .launch = ema::rqa::exact_launch::fields,
                            }));
