// The kernels and the driver of gauss/cuda's blocked LU; the design is in blocked_lu.cuh.
#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <map>
#include <string>
#include <vector>
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include "measure/cuda/check.cuh"
#include "measure/cuda/session.cuh"
#include "problems/gauss/blocked_lu.cuh"
#include "problems/gauss/libraries.cuh"

namespace ema::gauss::blocked {
namespace {

namespace cg = cooperative_groups;

constexpr int panel_threads = 512;

/// Rows each thread of k_panel holds in registers: a row is `strip` values, 32 registers in float.
template <class T>
constexpr int rows_per_thread = sizeof(T) == 4 ? 2 : 1;
template <class T>
constexpr int rows_per_block_max = panel_threads* rows_per_thread<T>;

/// Keeps the larger |value|; among equals the lower logical position (LAPACK's first maximum).
template <class T>
__device__ void keep_better(T& best, int& pos, int& id, T other, int other_pos, int other_id) {
  if (other > best || (other == best && other_pos < pos)) best = other, pos = other_pos, id = other_id;
}

/// The warp's best (value, position, id) in every lane.
template <class T>
__device__ void warp_argmax(T& best, int& pos, int& id) {
  for (int d = 16; d > 0; d /= 2)
    keep_better(best, pos, id, __shfl_xor_sync(~0u, best, d), __shfl_xor_sync(~0u, pos, d), __shfl_xor_sync(~0u, id, d));
}

/// Factors the strip of columns [j0, j0 + jb) of rows [j0, n) with partial pivoting. Block b holds
/// rows [j0 + b * rpb, j0 + (b + 1) * rpb) of the strip; thread i holds rows i, i + 512 of them in
/// registers for the whole kernel. Each row's registers are a window that slides one column per
/// step: at step t, a[k][0] is the row's column t, so every index is a constant while the column
/// loop stays rolled (unrolled, its 32 different bodies overflowed the instruction cache: ncu
/// showed 61% of the cycles waiting on instruction fetch). A finished value (a multiplier of L,
/// or a pivot row's U) is stored to the staging rows in shared memory as it is produced.
/// Rows never move: each carries its logical position, an interchange only swaps two positions,
/// and the rows are written back to their final positions at the end. Per column:
///  - each warp's best candidate, a barrier, every warp reduces the sixteen and knows the pivot;
///  - one block: the pivot row's owner puts its window in shared memory, a barrier;
///  - several blocks: each block publishes its best with its window in the parity-t half of a
///    buffer, all the blocks meet at a barrier, every block picks the same winner and loads its
///    window, a barrier. A half is written again two columns later, after the next barrier of all.
///    Clustered (the blocks are one thread-block cluster): the buffer is each block's own shared
///    memory, read by the others through the cluster (distributed shared memory), and the barrier
///    is the cluster's; else the buffer is the scratch in global memory and the barrier the
///    cooperative grid's (beyond one block's step, about 1.5 us a column on the grid and 0.8 on a
///    cluster: docs/perf-notes.md, gauss v9);
///  - every other candidate row is updated: 31 register FMAs against broadcast loads, then slides.
template <class T, bool Clustered>
__global__ void __launch_bounds__(panel_threads) k_panel(T* m, long long n1, int n, int j0, int jb, int rpb, workspace<T> ws) {
  extern __shared__ __align__(16) unsigned char raw[];
  constexpr int P = strip + 1;  // staging pitch: a row per thread hits distinct banks
  constexpr int R = rows_per_thread<T>;
  constexpr int warps = panel_threads / 32;
  const int b = blockIdx.x, B = gridDim.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int tid = static_cast<int>(threadIdx.x);
  T* sh = reinterpret_cast<T*>(raw);
  int* final_pos = reinterpret_cast<int*>(sh + rpb * P);
  __shared__ T w_best[2][warps];
  __shared__ int w_pos[2][warps], w_id[2][warps];
  __shared__ T prow[2][strip];
  // The block's candidate for the cluster, by parity (Clustered only).
  __shared__ T c_abs[2];
  __shared__ int c_row[2];
  __shared__ T c_data[2][strip];
  const int first = j0 + b * rpb;
  const int count = max(0, min(rpb, n - first));
  // The strip comes in by asynchronous copies (cp.async), a warp per row and a lane per column.
  if (lane < jb)
    for (int r = warp; r < count; r += warps) __pipeline_memcpy_async(sh + r * P + lane, m + (first + r) * n1 + j0 + lane, sizeof(T));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  T a[R][strip];
  int lp[R];
  bool has[R];
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const int r = tid + k * panel_threads;
    has[k] = r < count;
    lp[k] = first + r;
#pragma unroll
    for (int c = 0; c < strip; ++c) a[k][c] = has[k] && c < jb ? sh[r * P + c] : T(0);
  }
#pragma unroll 1
  for (int t = 0; t < jb; ++t) {
    const int diag = j0 + t, par = t & 1;
    T best = T(-1);
    int pos = INT_MAX, id = -1;
#pragma unroll
    for (int k = 0; k < R; ++k)
      if (has[k] && lp[k] >= diag) keep_better(best, pos, id, fabs(a[k][0]), lp[k], tid + k * panel_threads);
    warp_argmax(best, pos, id);
    if (lane == 0) w_best[par][warp] = best, w_pos[par][warp] = pos, w_id[par][warp] = id;
    __syncthreads();
    best = lane < warps ? w_best[par][lane] : T(-1);
    pos = lane < warps ? w_pos[par][lane] : INT_MAX;
    id = lane < warps ? w_id[par][lane] : -1;
    warp_argmax(best, pos, id);
    if (Clustered && B > 1) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900  // clusters are compute capability 9.0's
      cg::cluster_group cluster = cg::this_cluster();
      if (tid == 0) c_abs[par] = best, c_row[par] = pos;
      if (id >= 0 && tid == id % panel_threads) {
#pragma unroll
        for (int k = 0; k < R; ++k)
          if (tid + k * panel_threads == id)
#pragma unroll
            for (int c = 0; c < strip; ++c) c_data[par][c] = a[k][c];
      }
      cluster.sync();
      best = T(-1);
      pos = INT_MAX;
      id = -1;
      for (int i = lane; i < B; i += 32)
        keep_better(best, pos, id, *cluster.map_shared_rank(&c_abs[par], i), *cluster.map_shared_rank(&c_row[par], i), i);
      warp_argmax(best, pos, id);
      if (tid < strip) prow[par][tid] = cluster.map_shared_rank(&c_data[par][0], id)[tid];
#endif
    } else if (!Clustered && B > 1) {
      cg::grid_group grid = cg::this_grid();
      if (tid == 0) ws.cand_abs[par * B + b] = best, ws.cand_row[par * B + b] = pos;
      if (id >= 0 && tid == id % panel_threads) {  // one thread: the others skip the branch
#pragma unroll
        for (int k = 0; k < R; ++k)
          if (tid + k * panel_threads == id)
#pragma unroll
            for (int c = 0; c < strip; ++c) ws.cand_data[(par * B + b) * strip + c] = a[k][c];
      }
      grid.sync();
      best = T(-1);
      pos = INT_MAX;
      id = -1;
      for (int i = lane; i < B; i += 32) keep_better(best, pos, id, __ldcg(ws.cand_abs + par * B + i), __ldcg(ws.cand_row + par * B + i), i);
      warp_argmax(best, pos, id);
      if (tid < strip) prow[par][tid] = __ldcg(ws.cand_data + (par * B + id) * strip + tid);
    } else if (tid == id % panel_threads) {
#pragma unroll
      for (int k = 0; k < R; ++k)
        if (tid + k * panel_threads == id)
#pragma unroll
          for (int c = 0; c < strip; ++c) prow[par][c] = a[k][c];
    }
    __syncthreads();
    // Interchange positions diag and pos. A zero column (every candidate 0) is left as it is:
    // no elimination, the first such step reported (LAPACK's getf2).
    const bool zero = !(best > T(0));
    if (b == 0 && tid == 0) {
      ws.ipiv[diag] = pos;
      if (zero && *ws.info == 0) *ws.info = diag + 1;
    }
    const T pivot = prow[par][0];
    // Multipliers first (stored as L as they are made), so the update below streams the pivot
    // row once for both rows; rows that are not updated get a zero factor and merely slide.
    T f[R];
    bool is_pivot[R], pivot_here = false;
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const bool candidate = has[k] && lp[k] >= diag;
      is_pivot[k] = candidate && lp[k] == pos;
      pivot_here = pivot_here || is_pivot[k];
      f[k] = T(0);
      if (candidate && !is_pivot[k]) {
        if (lp[k] == diag) lp[k] = pos;  // the row the pivot displaces takes its place
        const T l = zero ? a[k][0] : a[k][0] / pivot;
        sh[(tid + k * panel_threads) * P + t] = l;
        f[k] = zero ? T(0) : l;
      }
    }
    if (pivot_here) {  // the pivot row's window is its row of U; it moves to the diagonal
#pragma unroll
      for (int k = 0; k < R; ++k)
        if (is_pivot[k]) {
          lp[k] = diag;
#pragma unroll
          for (int c = 0; c < strip; ++c)
            if (c < jb - t) sh[(tid + k * panel_threads) * P + t + c] = a[k][c];
        }
    }
#pragma unroll
    for (int c = 1; c < strip; ++c) {
      const T pc = prow[par][c];
#pragma unroll
      for (int k = 0; k < R; ++k) a[k][c - 1] = a[k][c] - f[k] * pc;
    }
#pragma unroll
    for (int k = 0; k < R; ++k) a[k][strip - 1] = T(0);
  }
  // No block leaves while another may still read its shared memory (the last column's reads).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  if constexpr (Clustered)
    if (B > 1) cg::this_cluster().sync();
#endif
#pragma unroll
  for (int k = 0; k < R; ++k)
    if (has[k]) final_pos[tid + k * panel_threads] = lp[k];
  __syncthreads();
  if (lane < jb)
    for (int r = warp; r < count; r += warps) m[final_pos[r] * n1 + j0 + lane] = sh[r * P + lane];
}

/// Applies the interchanges of steps [s0, s0 + count) (rows s0 + t and ipiv[s0 + t], t in order)
/// to the columns [c0, c1); consecutive threads take consecutive columns, so each swap is coalesced.
template <class T>
__global__ void k_swap_rows(T* m, long long n1, int c0, int c1, int s0, int count, const int* ipiv) {
  for (long long c = c0 + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < c1;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    for (int t = 0; t < count; ++t) {
      const long long q = ipiv[s0 + t], d = s0 + t;
      if (q != d) {
        const T a = m[d * n1 + c];
        m[d * n1 + c] = m[q * n1 + c];
        m[q * n1 + c] = a;
      }
    }
  }
}

template <class T>
void swap_rows(T* m, int n1, int c0, int c1, int s0, int count, const int* ipiv, cudaStream_t stream) {
  if (c1 <= c0 || count <= 0) return;
  k_swap_rows<T><<<(c1 - c0 + 255) / 256, 256, 0, stream>>>(m, n1, c0, c1, s0, count, ipiv);
  EMA_CUDA_CHECK_LAUNCH();
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
  EMA_CUBLAS_CHECK(gemm(h, w, hgt, kb, &minus, m + static_cast<long long>(k) * n1 + c, n1, m + static_cast<long long>(r) * n1 + k, n1, &one,
                        m + static_cast<long long>(r) * n1 + c, n1));
}

template <class T>
void enable_shared(int bytes) {
  static std::map<int, int> enabled;  // per device
  int device = 0;
  EMA_CUDA_CHECK(cudaGetDevice(&device));
  if (bytes > enabled[device]) {
    int limit = 0;
    EMA_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (bytes > limit)
      throw std::runtime_error("gauss/cuda: the strip kernel needs " + std::to_string(bytes) +
                               " bytes of shared memory per block; this device allows " + std::to_string(limit));
    EMA_CUDA_CHECK(cudaFuncSetAttribute(k_panel<T, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    EMA_CUDA_CHECK(cudaFuncSetAttribute(k_panel<T, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    enabled[device] = bytes;
  }
}

/// A launch of k_panel's `blocks` blocks, `shared` bytes each, as one thread-block cluster; `attr`
/// holds the cluster's shape and must outlive the launch.
cudaLaunchConfig_t as_one_cluster(int blocks, int shared, cudaStream_t stream, cudaLaunchAttribute& attr) {
  attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(blocks);
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(panel_threads);
  cfg.dynamicSmemBytes = static_cast<std::size_t>(shared);
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cfg;
}

/// Whether `blocks` blocks of k_panel with `shared` bytes each can run as one thread-block cluster
/// on the current device (compute capability 9.0 and up; more than 8 only where the device allows
/// a non-portable size). Asked once per device, block count and size of shared memory.
template <class T>
bool fits_a_cluster(int blocks, int shared) {
  static std::map<std::array<int, 3>, bool> known;
  int device = 0;
  EMA_CUDA_CHECK(cudaGetDevice(&device));
  const std::array<int, 3> key{device, blocks, shared};
  if (auto it = known.find(key); it != known.end()) return it->second;
  bool fits = false;
  int supported = 0;
  EMA_CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrClusterLaunch, device));
  if (supported && blocks <= 16) {
    if (blocks > 8) EMA_CUDA_CHECK(cudaFuncSetAttribute(k_panel<T, true>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attr{};
    const auto cfg = as_one_cluster(blocks, shared, nullptr, attr);
    int clusters = 0;
    // An error here means only that the size is not possible: ask nothing more of it.
    const auto asked = cudaOccupancyMaxActiveClusters(&clusters, k_panel<T, true>, &cfg);
    if (asked != cudaSuccess) (void)cudaGetLastError();  // clears this query's error, and only it
    fits = asked == cudaSuccess && clusters >= 1;
  }
  known[key] = fits;
  return fits;
}

}  // namespace

template <class T>
std::size_t workspace<T>::bytes(std::size_t n, int blocks) {
  auto up = [](std::size_t b) { return (b + 255) / 256 * 256; };
  const auto mb = static_cast<std::size_t>(blocks);
  return up(n * sizeof(int)) + up(sizeof(int)) + up(2 * mb * sizeof(T)) + up(2 * mb * sizeof(int)) + up(2 * mb * strip * sizeof(T)) +
         up(2 * strip * sizeof(T));
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

/// Laps on the GPU session's timeline around launches, by kind of work (profile_kinds; profiling
/// only: without a session, the work alone).
class launch_laps {
 public:
  explicit launch_laps(cuda::session* gpu) : gpu_(gpu) {}
  template <class F>
  void operator()(const char* kind, cudaStream_t stream, F&& work) {
    if (!gpu_) return work();
    auto lap = gpu_->lap_on(kind, stream);
    work();
  }

 private:
  cuda::session* gpu_;
};

/// The second stream of the look-ahead (the highest priority, so the panels' blocks are scheduled
/// first as the trailing update's blocks drain) and two events, per device, kept for the process.
struct lookahead_resources {
  cudaStream_t panel = nullptr;
  cublasHandle_t blas = nullptr;  // the panel stream's own handle: two streams never share a workspace
  cudaEvent_t factored = nullptr, updated = nullptr, start = nullptr;
};

lookahead_resources& lookahead() {
  static std::map<int, lookahead_resources> per_device;
  int device = 0;
  EMA_CUDA_CHECK(cudaGetDevice(&device));
  auto& r = per_device[device];
  if (!r.panel) {
    int least = 0, greatest = 0;
    EMA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    EMA_CUDA_CHECK(cudaStreamCreateWithPriority(&r.panel, cudaStreamNonBlocking, greatest));
    for (auto* e : {&r.factored, &r.updated, &r.start}) EMA_CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    EMA_CUBLAS_CHECK(api().cublasCreate(&r.blas));
    EMA_CUBLAS_CHECK(api().cublasSetStream(r.blas, r.panel));
  }
  return r;
}

/// Factors the strips of panel [k0, k0 + kb) on `stream`; interchanges are applied inside the panel only.
template <class T>
void factor_panel(T* m, int n, int k0, int kb, bool clusters, const workspace<T>& ws, cublasHandle_t h, cudaStream_t stream, launch_laps& timed,
                  strip_counts& counts) {
  const int n1 = n + 1;
  for (int j0 = k0; j0 < k0 + kb; j0 += strip) {
    const int jb = std::min(strip, k0 + kb - j0);
    const int rows = n - j0;
    const int blocks = ceil_div(rows, rows_per_block_max<T>);
    if (blocks > ws.max_blocks)
      throw std::runtime_error("gauss/cuda: n = " + std::to_string(n) + " needs " + std::to_string(blocks) +
                               " blocks for a strip; this device runs " + std::to_string(ws.max_blocks) + " at once");
    int rpb = ceil_div(rows, blocks);
    const int shared = rpb * (strip + 1) * static_cast<int>(sizeof(T)) + rpb * static_cast<int>(sizeof(int));
    enable_shared<T>(shared);
    long long ld = n1;
    int first = j0, width = jb, order = n;
    workspace<T> w = ws;
    const bool clustered = clusters && blocks > 1 && fits_a_cluster<T>(blocks, shared);
    ++(blocks == 1 ? counts.one_block : clustered ? counts.cluster : counts.grid);
    if (clustered) {
      timed("strip", stream, [&] {
        cudaLaunchAttribute attr{};
        const auto cfg = as_one_cluster(blocks, shared, stream, attr);
        EMA_CUDA_CHECK(cudaLaunchKernelEx(&cfg, k_panel<T, true>, m, ld, order, first, width, rpb, w));
      });
    } else {
      void* args[] = {&m, &ld, &order, &first, &width, &rpb, &w};
      timed("strip", stream, [&] {
        EMA_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(k_panel<T, false>), dim3(static_cast<unsigned>(blocks)),
                                                   dim3(panel_threads), args, static_cast<std::size_t>(shared), stream));
      });
    }
    const int done = j0 + jb, rest = k0 + kb - done;
    // The strip's interchanges reach the rest of its panel: its earlier strips' L (the panel's L21
    // feeds the updates right of the panel) and the columns still to be factored.
    timed("swap", stream, [&] {
      swap_rows(m, n1, k0, j0, j0, jb, ws.ipiv, stream);
      swap_rows(m, n1, done, k0 + kb, j0, jb, ws.ipiv, stream);
    });
    timed("panel_update", stream, [&] {
      solve_lower(h, m, n1, j0, jb, done, rest);
      update(h, m, n1, done, n - done, done, rest, j0, jb);
    });
  }
}

/// Applies panel [k0, k0 + kb)'s interchanges and elimination to the columns [c0, c1) on `stream`.
template <class T>
void update_columns(T* m, int n, int k0, int kb, int c0, int c1, const int* ipiv, cublasHandle_t h, cudaStream_t stream, launch_laps& timed,
                    const char* kind) {
  if (c1 <= c0) return;
  const int n1 = n + 1;
  timed("swap", stream, [&] { swap_rows(m, n1, c0, c1, k0, kb, ipiv, stream); });
  timed(kind, stream, [&] {
    solve_lower(h, m, n1, k0, kb, c0, c1 - c0);
    update(h, m, n1, k0 + kb, n - k0 - kb, c0, c1 - c0, k0, kb);
  });
}

/// The factorisation's launches issued on the streams as they come (factor() captures them).
template <class T>
strip_counts issue(T* m, int n, const launch& how, const workspace<T>& ws, cudaStream_t stream, cuda::session* profiled) {
  const int nb = how.nb;
  strip_counts counts;
  // Look-ahead (Strazdins; MAGMA's getrf): panel k + 1 is updated by panel k first, on the panel
  // stream, and factored there while the main stream updates the columns right of it. The column
  // sets are disjoint, so the two streams never touch the same element; every interchange of a
  // panel reaches a column just before that panel's update of it, after the updates of the panels
  // before it. L below the diagonal is left unpermuted outside its own panel: nothing reads it
  // again, since b is eliminated with the rows.
  launch_laps timed(profiled);
  auto& la = lookahead();
  cublasHandle_t main_blas = cublas_handle();  // bound to `stream`, the device's ema stream
  const int n1 = n + 1;
  EMA_CUDA_CHECK(cudaMemsetAsync(ws.info, 0, sizeof(int), stream));
  EMA_CUDA_CHECK(cudaEventRecord(la.start, stream));
  EMA_CUDA_CHECK(cudaStreamWaitEvent(la.panel, la.start));
  for (int k0 = 0; k0 < n; k0 += nb) {
    const int kb = std::min(nb, n - k0);
    const int next = k0 + kb, next_end = std::min(n, next + nb);
    factor_panel(m, n, k0, kb, how.cluster != 0, ws, la.blas, la.panel, timed, counts);
    EMA_CUDA_CHECK(cudaEventRecord(la.factored, la.panel));
    if (next < n) {
      if (k0 > 0) EMA_CUDA_CHECK(cudaStreamWaitEvent(la.panel, la.updated));  // panel k - 1's trailing update
      update_columns(m, n, k0, kb, next, next_end, ws.ipiv, la.blas, la.panel, timed, "panel_update");
    }
    EMA_CUDA_CHECK(cudaStreamWaitEvent(stream, la.factored));
    update_columns(m, n, k0, kb, next < n ? next_end : next, n1, ws.ipiv, main_blas, stream, timed, "trailing_update");
    EMA_CUDA_CHECK(cudaEventRecord(la.updated, stream));
  }
  EMA_CUDA_CHECK(cudaEventRecord(la.factored, la.panel));
  EMA_CUDA_CHECK(cudaStreamWaitEvent(stream, la.factored));
  return counts;
}

/// A captured factorisation and what it was captured for: the graph replays these pointers, this
/// order and these settings, on this stream.
struct captured {
  const void* m = nullptr;
  const void* scratch = nullptr;  // the workspace's first pointer; the rest are carved from it
  int n = 0, blocks = 0, nb = 0, cluster = 0;
  cudaStream_t stream = nullptr;
  cudaGraphExec_t exec = nullptr;
  strip_counts counts;
  bool same(const captured& o) const {
    return m == o.m && scratch == o.scratch && n == o.n && blocks == o.blocks && nb == o.nb && cluster == o.cluster && stream == o.stream;
  }
};

/// The launches of issue() captured in a CUDA graph and replayed: one graph per device and element
/// type, captured again when anything it was captured for changes.
template <class T>
strip_counts replay(T* m, int n, const launch& how, const workspace<T>& ws, cudaStream_t stream) {
  static std::map<int, captured> per_device;
  int device = 0;
  EMA_CUDA_CHECK(cudaGetDevice(&device));
  captured want;
  want.m = m, want.scratch = ws.ipiv, want.n = n, want.blocks = ws.max_blocks, want.nb = how.nb, want.cluster = how.cluster, want.stream = stream;
  auto& have = per_device[device];
  if (have.exec && have.same(want)) {
    EMA_CUDA_CHECK(cudaGraphLaunch(have.exec, stream));
    auto counts = have.counts;
    counts.replayed = true;
    return counts;
  }
  if (have.exec) EMA_CUDA_CHECK(cudaGraphExecDestroy(have.exec));
  have = captured{};
  (void)lookahead();  // the panel stream, its events and its cuBLAS handle exist before the capture
  cudaGraph_t graph = nullptr;
  // Relaxed: the first capture of a size also sets the strip kernel's shared memory and asks the
  // device whether its blocks fit a cluster, calls that are not stream work.
  EMA_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  try {
    want.counts = issue(m, n, how, ws, stream, nullptr);
  } catch (...) {
    (void)cudaStreamEndCapture(stream, &graph);  // ends the capture on both streams; the error is the one thrown
    if (graph) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    throw;
  }
  EMA_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  const auto made = cudaGraphInstantiate(&want.exec, graph, 0);
  const auto destroyed = cudaGraphDestroy(graph);  // the graph goes whether or not it instantiated
  EMA_CUDA_CHECK(made);
  have = want;  // kept before any later check can throw, so the next call destroys it
  EMA_CUDA_CHECK(destroyed);
  EMA_CUDA_CHECK(cudaGraphLaunch(have.exec, stream));
  return have.counts;
}

template <class T>
strip_counts factor(T* m, int n, const launch& how, const workspace<T>& ws, cudaStream_t stream, cuda::session* profiled) {
  if (how.graph && !profiled) return replay(m, n, how, ws, stream);
  return issue(m, n, how, ws, stream, profiled);
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
template strip_counts factor<float>(float*, int, const launch&, const workspace<float>&, cudaStream_t, cuda::session*);
template strip_counts factor<double>(double*, int, const launch&, const workspace<double>&, cudaStream_t, cuda::session*);
template void substitute<float>(float*, int, float*, cudaStream_t);
template void substitute<double>(double*, int, double*, cudaStream_t);

}  // namespace ema::gauss::blocked
