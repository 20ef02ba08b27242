// The source's CUDA kernels, Zudio et al., 003_7e2665a3d38c50fb.txt section 3.1 (Codes 3.1, 3.2 and 3.3), shared
// by `cuda-kv1` and `cuda-kv2`, with the source's launch geometry (section 4: 16 x 16 blocks for
// stage 1, blocks of 64 threads for stage 2). The listings are damaged by the text extraction and
// have typos; each interpretation is marked "Interpretation" where it is made.
//
// Pivots on the secondary diagonal. The source's stage 1 pivots at (l, k) with k = n - 1 - l, "on
// the secondary diagonal, unlike the sequential version ... an equivalent variation" (section 3.1).
// That is equivalent only if the unknowns are numbered backwards: column k of the device matrix
// must hold unknown n - 1 - k, so that the secondary-diagonal pivot (l, n - 1 - l) is A's diagonal
// element (l, l), the pivot Algorithm 1 uses (any other choice divides by an arbitrary entry of a
// matrix that is diagonally dominant, not anti-diagonally). Interpretation: after the one copy to
// the device, `k_mirror` reverses the order of A's columns in place (one launch, counted in
// stage 1); after stage 2, r[k] is x[n - 1 - k].
#pragma once

#include <algorithm>
#include <array>
#include <cuda_runtime.h>

#include "core/launch.hpp"
#include "measure/cuda/check.cuh"

namespace ema::gauss::source {

constexpr int stage1_block = 16;  // DIMTHREAD: 16 x 16 threads
constexpr int stage2_block = 64;  // NTHREAD

/// The source's launch geometry (core/launch.hpp). DIMTHREAD sizes Code 3.1's shared row and
/// NTHREAD Code 3.3's shared reduction, so they are fixed where a kernel's arrays depend on them;
/// Code 3.2 (Kv1) takes any NTHREAD up to `Stage2Max`.
template <int Stage2Max>
struct source_launch {
  int dimthread = stage1_block;
  int nthread = stage2_block;
  static constexpr launch_field fields[] = {
      {"dimthread", "DIMTHREAD: stage 1 runs DIMTHREAD x DIMTHREAD blocks (fixed at the source's 16: Code 3.1's shared row)", stage1_block,
       stage1_block},
      {"nthread",
       Stage2Max == stage2_block ? "NTHREAD: stage 2's threads per block (fixed at the source's 64: Code 3.3's shared reduction)"
                                 : "NTHREAD: stage 2's threads per block (the source: 64)",
       Stage2Max == stage2_block ? stage2_block : 1, Stage2Max},
  };
  std::array<int*, 2> members() { return {&dimthread, &nthread}; }
};

/// Reverses the order of the first n columns of every row of the n x (n + 1) matrix.
template <class T>
__global__ void k_mirror(T* s, int n) {
  const long long i = blockIdx.y, n1 = n + 1;
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n / 2; j += gridDim.x * blockDim.x) {
    const T a = s[i * n1 + j];
    s[i * n1 + j] = s[i * n1 + (n - 1 - j)];
    s[i * n1 + (n - 1 - j)] = a;
  }
}

/// Code 3.1, k_escalona: one step of stage 1, pivot at row l, column k = n - 1 - l; one thread per
/// coefficient a_ij of the whole augmented matrix; the pivot row's slice for the block's columns is
/// staged in shared memory by the block's first row of threads.
/// Interpretations:
///  - `if (!(i < n) && (j < n1)) return;` is read as the bounds check it must be,
///    `if (!((i < n) && (j < n1))) return;`, and the shared load is guarded by j < n1 (the listing
///    reads past the row's end in the last block column).
///  - The listing updates columns j <= k; the thread with j == k overwrites sistema[i][k], the very
///    value every other thread of row i reads for its multiplier, in the same launch: a race. That
///    column below the pivot is never read again (later steps and stage 2 read columns < k only),
///    so it is left as it is and only j < k and the constant term j == n are updated.
///  - Indices are computed in 64 bits (i * (n + 1) overflows int past n = 46340).
template <class T>
__global__ void k_escalona(T* sistema, int n, int l, int k) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  const long long n1 = n + 1, in1 = i * n1, ln1 = l * n1;
  const T pivo = sistema[ln1 + k];
  __shared__ T linha[stage1_block];
  if (threadIdx.y == 0 && j < n1) linha[threadIdx.x] = sistema[ln1 + j];
  __syncthreads();
  if (!((i < n) && (j < n1))) return;
  if ((i > l) && ((j < k) || (j == n))) sistema[in1 + j] -= sistema[in1 + k] / pivo * linha[threadIdx.x];
}

/// Stage 1 as the source runs it: n - 1 launches of k_escalona over the whole matrix.
template <class T>
void stage1(T* s, int n, cudaStream_t stream) {
  const dim3 mirror_grid(grid_for(n / 2, 256, 64), static_cast<unsigned>(n));
  k_mirror<<<mirror_grid, 256, 0, stream>>>(s, n);
  EMA_CUDA_CHECK_LAUNCH();
  const dim3 block(stage1_block, stage1_block);
  const dim3 grid(grid_for(n + 1, stage1_block), grid_for(n, stage1_block));
  for (int l = 0; l + 1 < n; ++l) {
    k_escalona<<<grid, block, 0, stream>>>(s, n, l, n - 1 - l);
    EMA_CUDA_CHECK_LAUNCH();
  }
}

/// Code 3.2, k_subs_tras1 (Kv1): equation l, unknown k = n - 1 - l; thread j < k adds
/// -s[l][j] * r[j] to r[k] atomically, thread j == k adds the constant term. r starts at zero.
template <class T>
__global__ void k_subs_tras1(const T* s, T* r, int n, int l, int k) {
  const long long n1 = n + 1;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > k)
    return;
  else if (j == k)
    atomicAdd(r + k, s[l * n1 + n]);
  else
    atomicAdd(r + k, r[j] * (-s[l * n1 + j]));
}

/// Kv1's "special external thread" that divides the sum by the pivot a_lk (section 3.1).
template <class T>
__global__ void k_divide(const T* s, T* r, int n, int l, int k) {
  r[k] /= s[static_cast<long long>(l) * (n + 1) + k];
}

/// Code 3.3, k_subs_tras2 (Kv2): each block reduces its products -s[l][j] r[j] in shared memory and
/// one thread per block adds the block's sum, divided by the pivot, to r[k] atomically; the
/// thread of column 0 adds the constant term as well. r starts at zero.
/// Interpretations:
///  - The reduction loop's `if (tld.x >= i) return;` before `__syncthreads()` would leave the
///    barrier to the remaining threads, which the CUDA programming guide leaves undefined; the
///    threads stay and only the additions are guarded.
///  - Lines 9 to 19 of the listing are garbled repetitions of one statement; what remains is the
///    listing's lines 9-10: thread 0 of each block adds (sum + b_l) / a_lk if it is column 0, else
///    sum / a_lk.
///  - The "pre-processing" that solves equation n - 1 first is this kernel with k = 0 and one
///    block: no product, thread 0 of column 0 sets r[0] = b / a.
template <class T>
__global__ void k_subs_tras2(const T* s, T* r, int n, int l, int k) {
  const long long n1 = n + 1, ln1 = l * n1;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ T linha[stage2_block];
  linha[threadIdx.x] = (j < k) ? (-s[ln1 + j]) * r[j] : T(0);
  __syncthreads();
  for (int i = stage2_block / 2; i > 0; i /= 2) {
    if (threadIdx.x < i) linha[threadIdx.x] += linha[threadIdx.x + i];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    if (j == 0)
      atomicAdd(&r[k], (linha[0] + s[ln1 + n]) / s[ln1 + k]);
    else
      atomicAdd(&r[k], linha[0] / s[ln1 + k]);
  }
}

}  // namespace ema::gauss::source

#include <cmath>
#include <vector>

#include "problems/gauss/device_flow.cuh"

namespace ema::gauss::source {

/// The source's whole flow (section 3.1): one copy in, stage 1 (Code 3.1), stage 2 by
/// `stage2(s, r, n, stream)`, the n unknowns back; no overlap of copies and computation, each
/// phase timed apart. A zero pivot shows as a non-finite unknown; then the secondary diagonal is
/// read back to name the step.
template <class T, class Stage2>
output solve(const input& in, run_context& ctx, Stage2&& stage2) {
  cuda::session gpu(ctx);
  const device_system<T> sys(gpu, in);
  const int n = static_cast<int>(in.n);
  T* r = gpu.alloc<T>(in.n);
  T* back = gpu.results<T>(in.n);
  sys.upload(gpu, in);
  {
    auto part = gpu.kernel_part("stage1");
    stage1(sys.data(), n, gpu.stream());
  }
  {
    auto part = gpu.kernel_part("stage2");
    gpu.fill_bytes(r, 0, in.n);
    stage2(sys.data(), r, n, gpu.stream());
  }
  {
    auto d2h = gpu.phase("d2h");
    gpu.download(back, r, in.n);
  }
  gpu.publish();
  output out;
  out.x.resize(in.n);
  bool finite = true;
  for (std::size_t k = 0; k < in.n; ++k) {
    out.x[in.n - 1 - k] = static_cast<double>(back[k]);  // column k holds unknown n - 1 - k
    finite = finite && std::isfinite(out.x[in.n - 1 - k]);
  }
  if (!finite) {
    // Pivot l sits at (l, n - 1 - l): n elements n apart, starting at column n - 1.
    std::vector<T> pivots(in.n);
    gpu.download_strided(pivots.data(), sys.at(0, in.n - 1), in.n, in.n);
    gpu.wait();
    for (std::size_t l = 0; l < in.n; ++l)
      if (pivots[l] == T(0)) {
        out.status = output::state::singular;
        out.step = static_cast<std::int64_t>(l);
        out.x.clear();
        break;
      }
  }
  gpu.finish();
  return out;
}

}  // namespace ema::gauss::source
