// The kernels and the driver of gauss/cuda's blocked LU; the design is in blocked_lu.cuh.
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <cooperative_groups.h>

#include "measure/cuda/check.cuh"
#include "problems/gauss/blocked_lu.cuh"
#include "problems/gauss/libraries.cuh"

namespace ema::gauss::blocked {
namespace {

namespace cg = cooperative_groups;

constexpr int panel_threads = 512;

template <class T>
constexpr int rows_per_block_max() {
  return sizeof(T) == 4 ? 1600 : 800;  // (strip + 1) values per row: 206 KiB of shared memory
}

template <class T>
__device__ void keep_better(T& best, int& row, T other, int other_row) {
  if (other > best || (other == best && other_row < row)) best = other, row = other_row;
}

/// The block's largest |value| and its row (the lowest row among equals), in every thread. Two
/// barriers; the caller must pass another barrier before the next call (the scratch is reused).
template <class T>
__device__ void block_argmax(T& best, int& row) {
  constexpr int warps = panel_threads / 32;
  __shared__ T warp_best[warps];
  __shared__ int warp_row[warps];
  for (int d = 16; d > 0; d /= 2) keep_better(best, row, __shfl_down_sync(~0u, best, d), __shfl_down_sync(~0u, row, d));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_best[warp] = best, warp_row[warp] = row;
  __syncthreads();
  if (warp == 0) {
    best = lane < warps ? warp_best[lane] : T(-1);
    row = lane < warps ? warp_row[lane] : INT_MAX;
    for (int d = 16; d > 0; d /= 2) keep_better(best, row, __shfl_down_sync(~0u, best, d), __shfl_down_sync(~0u, row, d));
    if (lane == 0) warp_best[0] = best, warp_row[0] = row;
  }
  __syncthreads();
  best = warp_best[0];
  row = warp_row[0];
}

/// Factors the strip of columns [j0, j0 + jb) of rows [j0, n) with partial pivoting. Block b holds
/// rows [j0 + b * rpb, j0 + (b + 1) * rpb) of the strip in shared memory for the whole kernel;
/// thread t owns rows t, t + 512, ... of it for the pivot search and the update, so those two need
/// no barrier between them.
///  - One block (the last 1600 rows in float): the search, the interchange and the update all stay
///    in shared memory; per column one block reduction and one more barrier.
///  - Several blocks: every block publishes its best candidate with the candidate's strip (and the
///    diagonal row's, if it holds it) in the parity-t half of the scratch; one grid-wide barrier;
///    every block then loads all candidates at once (one L2 round trip), picks the same winner and
///    swaps it with the diagonal row where it holds either. A half is written again two columns
///    later, after the next grid barrier.
template <class T>
__global__ void __launch_bounds__(panel_threads) k_panel(T* m, long long n1, int n, int j0, int jb, int rpb, workspace<T> ws) {
  extern __shared__ __align__(16) unsigned char raw[];
  constexpr int P = strip + 1;  // padded pitch: a column read by consecutive rows hits distinct banks
  T* sh = reinterpret_cast<T*>(raw);
  T* all = sh + rpb * P;  // B > 1: every block's candidate strip, B x jb
  __shared__ T prow[strip], drow[strip];
  cg::grid_group grid = cg::this_grid();
  const int b = blockIdx.x, B = gridDim.x;
  const int first = j0 + b * rpb;
  const int count = max(0, min(rpb, n - first));
  for (int e = threadIdx.x; e < count * jb; e += panel_threads) {
    const int r = e / jb, c = e - r * jb;
    sh[r * P + c] = m[(first + r) * n1 + j0 + c];
  }
  __syncthreads();
  for (int t = 0; t < jb; ++t) {
    const int diag = j0 + t, par = t & 1;
    T best = T(-1);
    int row = INT_MAX;
    for (int r = threadIdx.x; r < count; r += panel_threads)
      if (first + r >= diag) keep_better(best, row, fabs(sh[r * P + t]), first + r);
    block_argmax(best, row);
    if (B > 1) {
      if (threadIdx.x == 0) ws.cand_abs[par * B + b] = best, ws.cand_row[par * B + b] = row;
      if (row != INT_MAX && threadIdx.x < jb) ws.cand_data[(par * B + b) * strip + threadIdx.x] = sh[(row - first) * P + threadIdx.x];
      if (diag >= first && diag < first + count && threadIdx.x < jb)
        ws.diag_data[par * strip + threadIdx.x] = sh[(diag - first) * P + threadIdx.x];
      grid.sync();
      for (int e = threadIdx.x; e < B * jb; e += panel_threads) {
        const int i = e / jb, c = e - i * jb;
        all[e] = ws.cand_data[(par * B + i) * strip + c];
      }
      if (threadIdx.x < jb) drow[threadIdx.x] = ws.diag_data[par * strip + threadIdx.x];
      best = T(-1);
      row = INT_MAX;
      for (int i = threadIdx.x; i < B; i += panel_threads) keep_better(best, row, ws.cand_abs[par * B + i], ws.cand_row[par * B + i]);
      block_argmax(best, row);
    }
    if (!(best > T(0))) {  // a zero column: no interchange, no elimination (LAPACK's getf2)
      if (b == 0 && threadIdx.x == 0) {
        ws.ipiv[diag] = diag;
        if (*ws.info == 0) *ws.info = diag + 1;
      }
      __syncthreads();
      continue;
    }
    const int q = row;
    const bool q_here = q >= first && q < first + count, diag_here = diag >= first && diag < first + count;
    if (threadIdx.x < jb) {
      const int c = threadIdx.x;
      const T pivot_row = B > 1 ? all[((q - j0) / rpb) * jb + c] : sh[(q - first) * P + c];
      const T diag_row = B > 1 ? drow[c] : sh[(diag - first) * P + c];
      prow[c] = pivot_row;
      if (q != diag) {
        if (q_here) sh[(q - first) * P + c] = diag_row;
        if (diag_here) sh[(diag - first) * P + c] = pivot_row;
      }
    }
    if (b == 0 && threadIdx.x == 0) ws.ipiv[diag] = q;
    __syncthreads();
    const T pivot = prow[t];
    for (int r = threadIdx.x; r < count; r += panel_threads) {
      if (first + r <= diag) continue;
      T* v = sh + r * P;
      const T l = v[t] / pivot;
      v[t] = l;
      for (int c = t + 1; c < jb; ++c) v[c] -= l * prow[c];
    }
  }
  __syncthreads();
  for (int e = threadIdx.x; e < count * jb; e += panel_threads) {
    const int r = e / jb, c = e - r * jb;
    m[(first + r) * n1 + j0 + c] = sh[r * P + c];
  }
}

/// Applies the strip's interchanges (rows j0 + t and ipiv[j0 + t], t in order) to every column
/// outside the strip; consecutive threads take consecutive columns, so each swap is coalesced.
template <class T>
__global__ void k_swap_rows(T* m, long long n1, int j0, int jb, const int* ipiv) {
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < n1; c += static_cast<long long>(gridDim.x) * blockDim.x) {
    if (c >= j0 && c < j0 + jb) continue;
    for (int t = 0; t < jb; ++t) {
      const long long q = ipiv[j0 + t], d = j0 + t;
      if (q != d) {
        const T a = m[d * n1 + c];
        m[d * n1 + c] = m[q * n1 + c];
        m[q * n1 + c] = a;
      }
    }
  }
}

/// Row-major U12 = L11^-1 A12 for rows [r, r + kb), columns [c, c + w), L11 unit lower at (r, r).
template <class T>
void solve_lower(cublasHandle_t h, T* m, int n1, int r, int kb, int c, int w) {
  if (kb <= 0 || w <= 0) return;
  const T one = 1;
  // Column-major view: X^T (w x kb) = A12^T (L11^T)^-1, L11^T unit upper.
  EMA_CUBLAS_CHECK(trsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, w, kb, &one,
                        m + static_cast<long long>(r) * n1 + r, n1, m + static_cast<long long>(r) * n1 + c, n1));
}

/// Row-major C -= L U for rows [r, r + h), columns [c, c + w), inner [k, k + kb).
template <class T>
void update(cublasHandle_t h, T* m, int n1, int r, int hgt, int c, int w, int k, int kb) {
  if (hgt <= 0 || w <= 0 || kb <= 0) return;
  const T minus = -1, one = 1;
  // Column-major view: C^T (w x h) -= U^T (w x kb) L^T (kb x h).
  EMA_CUBLAS_CHECK(gemm(h, w, hgt, kb, &minus, m + static_cast<long long>(k) * n1 + c, n1, m + static_cast<long long>(r) * n1 + k,
                        n1, &one, m + static_cast<long long>(r) * n1 + c, n1));
}

template <class T>
void enable_shared(int bytes) {
  static int enabled = 0;
  if (bytes > enabled) {
    int device = 0, limit = 0;
    EMA_CUDA_CHECK(cudaGetDevice(&device));
    EMA_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (bytes > limit)
      throw std::runtime_error("gauss/cuda: the strip kernel needs " + std::to_string(bytes) +
                               " bytes of shared memory per block; this device allows " + std::to_string(limit));
    EMA_CUDA_CHECK(cudaFuncSetAttribute(k_panel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    enabled = bytes;
  }
}

}  // namespace

template <class T>
std::size_t workspace<T>::bytes(std::size_t n, int blocks) {
  auto up = [](std::size_t b) { return (b + 255) / 256 * 256; };
  const auto mb = static_cast<std::size_t>(blocks);
  return up(n * sizeof(int)) + up(sizeof(int)) + up(2 * mb * sizeof(T)) + up(2 * mb * sizeof(int)) +
         up(2 * mb * strip * sizeof(T)) + up(2 * strip * sizeof(T));
}

template <class T>
void workspace<T>::carve(void* base, std::size_t n, int blocks) {
  auto up = [](std::size_t b) { return (b + 255) / 256 * 256; };
  const auto mb = static_cast<std::size_t>(blocks);
  auto* p = static_cast<unsigned char*>(base);
  auto take = [&](std::size_t b) {
    void* q = p;
    p += up(b);
    return q;
  };
  ipiv = static_cast<int*>(take(n * sizeof(int)));
  info = static_cast<int*>(take(sizeof(int)));
  cand_abs = static_cast<T*>(take(2 * mb * sizeof(T)));
  cand_row = static_cast<int*>(take(2 * mb * sizeof(int)));
  cand_data = static_cast<T*>(take(2 * mb * strip * sizeof(T)));
  diag_data = static_cast<T*>(take(2 * strip * sizeof(T)));
  max_blocks = blocks;
}

int max_panel_blocks() {
  int device = 0, sms = 0;
  EMA_CUDA_CHECK(cudaGetDevice(&device));
  EMA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;  // one block per SM: k_panel's shared memory allows no more
}

template <class T>
void factor(T* m, int n, const workspace<T>& ws, cudaStream_t stream) {
  cublasHandle_t h = cublas_handle();
  const int n1 = n + 1;
  const int nb = n >= 8192 ? 256 : 128;
  EMA_CUDA_CHECK(cudaMemsetAsync(ws.info, 0, sizeof(int), stream));
  for (int k0 = 0; k0 < n; k0 += nb) {
    const int kb = std::min(nb, n - k0);
    for (int j0 = k0; j0 < k0 + kb; j0 += strip) {
      const int jb = std::min(strip, k0 + kb - j0);
      const int rows = n - j0;
      const int blocks = std::min(ws.max_blocks, (rows + rows_per_block_max<T>() - 1) / rows_per_block_max<T>());
      int rpb = (rows + blocks - 1) / blocks;
      const int shared = (rpb * (strip + 1) + (blocks > 1 ? blocks * strip : 0)) * static_cast<int>(sizeof(T));
      enable_shared<T>(shared);
      long long ld = n1;
      int first = j0, width = jb;
      workspace<T> w = ws;
      void* args[] = {&m, &ld, &n, &first, &width, &rpb, &w};
      EMA_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(k_panel<T>), dim3(static_cast<unsigned>(blocks)),
                                                 dim3(panel_threads), args, static_cast<std::size_t>(shared), stream));
      k_swap_rows<T><<<(n1 + 255) / 256, 256, 0, stream>>>(m, ld, j0, jb, ws.ipiv);
      EMA_CUDA_CHECK_LAUNCH();
      const int done = j0 + jb, rest = k0 + kb - done;
      solve_lower(h, m, n1, j0, jb, done, rest);
      update(h, m, n1, done, n - done, done, rest, j0, jb);
    }
    const int right = k0 + kb;
    solve_lower(h, m, n1, k0, kb, right, n1 - right);
    update(h, m, n1, right, n - right, right, n1 - right, k0, kb);
  }
}

template <class T>
void substitute(T* m, int n, T* x, cudaStream_t) {
  cublasHandle_t h = cublas_handle();
  const int n1 = n + 1;
  EMA_CUBLAS_CHECK(copy(h, n, m + n, n1, x));
  // Row-major U is the column-major lower triangle of the view: U x = c is view^T x = c.
  EMA_CUBLAS_CHECK(trsv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, m, n1, x));
}

template struct workspace<float>;
template struct workspace<double>;
template void factor<float>(float*, int, const workspace<float>&, cudaStream_t);
template void factor<double>(double*, int, const workspace<double>&, cudaStream_t);
template void substitute<float>(float*, int, float*, cudaStream_t);
template void substitute<double>(double*, int, double*, cudaStream_t);

}  // namespace ema::gauss::blocked
