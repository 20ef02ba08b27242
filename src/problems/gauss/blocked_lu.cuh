// gauss / cuda (ours): blocked right-looking LU with partial pivoting on the device, in the
// input's own layout. The augmented matrix [A|b] is factored row-major, so b is carried through
// the row operations as Algorithm 1 of Zudio et al., 003_7e2665a3d38c50fb.txt carries it (stage 1 leaves U and
// the transformed b) and a row interchange is a contiguous, coalesced swap. cuBLAS works
// column-major: a row-major block is the column-major transpose, so every update is issued on the
// transposes (C^T -= U^T L^T) with the same memory.
//
// Two levels of blocking (Golub and van Loan, section 3.4; LAPACK's getrf/getf2 split):
//   outer panels of nb columns (32 below n = 3500, 64 up to 4096, 128, 256 from 8192; `launch.nb`): after a panel,
//     U12 = L11^-1 A12   (cuBLAS TRSM, b's column included)
//     A22 -= L21 U12     (cuBLAS GEMM, the Θ(n^3) part);
//   inside a panel, strips of 32 columns, each factored by one kernel (k_panel) that keeps the
//   strip's rows in registers across its blocks and needs one barrier of all its blocks per column
//   (for the pivot search): where the blocks fit one thread-block cluster (Hopper, up to 16
//   blocks), a cluster barrier with the candidates read from the other blocks' shared memory;
//   else a cooperative launch, a grid-wide barrier and the candidates through global memory.
//   Then the strip's row interchanges are applied to every other column (k_swap_rows) and the
//   rest of the panel is updated with TRSM and GEMM.
// Look-ahead: panel k + 1 receives panel k's update first and is factored on a second,
// high-priority stream while the main stream applies panel k to the columns right of it, so the
// latency-bound strips hide behind the flop-bound GEMMs. The strip comes into shared memory by
// cp.async. At small n the time is that chain of short launches (four to eight a panel), so below
// n = 3500 the whole of it, both streams, is captured once in a CUDA graph and replayed
// (`launch.graph`). Stage 2 is one cuBLAS TRSV on U.
#pragma once

#include <array>
#include <cuda_runtime.h>

#include "core/launch.hpp"

#include "core/device_memory.hpp"

namespace ema::cuda {
class session;
}

namespace ema::gauss::blocked {

constexpr int strip = 32;  // columns per k_panel launch

/// Device scratch for one factorisation of order n.
template <class T>
struct workspace {
  int* ipiv = nullptr;      ///< [n]: the row swapped with row j at step j (0-based)
  int* info = nullptr;      ///< the first zero pivot's step + 1, 0 if none
  T* cand_abs = nullptr;    ///< [2][blocks]: each block's best |pivot| at a step, by parity
  int* cand_row = nullptr;  ///< [2][blocks]: its row
  T* cand_data = nullptr;   ///< [2][blocks][strip]: its row's strip
  T* diag_data = nullptr;   ///< [2][strip]: the strip of the row at the diagonal
  int max_blocks = 0;
  static std::size_t bytes(std::size_t n, int max_blocks);
  /// Carves the pointers out of `base` (bytes(n, max_blocks) long, 256-byte aligned).
  void carve(void* base, std::size_t n, int max_blocks);
};

/// How many cooperative blocks k_panel may use at once on the current device.
int max_panel_blocks();

/// The outer blocking and the strip kernel's barrier (core/launch.hpp): panels of nb columns,
/// chosen from n; clusters where the device has them and a strip's blocks fit one.
struct launch {
  int nb = 128;
  int cluster = 1;
  int graph = 1;
  static constexpr launch_field fields[] = {
      {"nb",
       "columns per outer panel (ema: 32, one strip, below n = 3500 and 64 up to 4096, where the panels are the critical path; 128; 256 "
       "from n = 8192, where the GEMMs grow enough to hide the panels)",
       strip, 1024, strip},
      {"cluster",
       "1: a strip whose blocks fit one thread-block cluster synchronises them by the cluster's barrier, 0: always by a cooperative "
       "grid-wide one (ema: 1; devices without clusters always use the grid)",
       0, 1},
      {"graph",
       "1: the factorisation's launches are captured once in a CUDA graph and replayed while the matrix, its order and the launch "
       "settings stay the same, 0: every launch issued on the streams as it comes (ema: 1 below n = 3500, 0 from there; the profile, "
       "EMA_GAUSS_PROFILE, always issues them)",
       0, 1}};
  std::array<int*, 3> members() { return {&nb, &cluster, &graph}; }
};
/// Measured on an H200 (docs/perf-notes.md, gauss v10): below n = 3500 one strip a panel and the
/// graph are 2-4% quicker each; from 4000 the graph is 2-3% slower (likely: its replay does not keep the
/// panel stream's priority, so the look-ahead's strips wait behind the trailing GEMMs).
inline launch choose_launch(int n) {
  const bool small = n < 3500;
  return {small ? 32 : n <= 4096 ? 64 : n < 8192 ? 128 : 256, 1, small ? 1 : 0};
}

/// Device time by kind of work, for tuning (EMA_GAUSS_PROFILE=1 in the environment makes the
/// `cuda` variant record these as extra phases `profile_<kind>`): strip kernels, interchanges,
/// updates inside a panel, updates right of a panel; laps on the session's timeline (an event pair
/// per launch).
inline constexpr const char* profile_kinds[] = {"strip", "swap", "panel_update", "trailing_update"};

/// How the strips were factored: by one block, by one thread-block cluster, by a cooperative grid
/// (the variant notes them: `strips_one_block`, `strips_cluster`, `strips_grid`).
struct strip_counts {
  int one_block = 0, cluster = 0, grid = 0;
  bool replayed = false;  ///< the launches came from a graph captured by an earlier call
};

/// Factors the n x (n + 1) row-major [A|b] at `m` in place: on return the upper triangle holds U,
/// the column n holds L^-1 P b, and *ws.info the first zero pivot's step + 1 (0: none). With
/// `profiled`, each launch is a lap of its kind (profile_kinds) on that session's timeline. With
/// `how.graph` (and not profiled) the launches are captured in a CUDA graph the first time and
/// replayed while m, n, the workspace, the stream and `how` stay the same (one graph per device and
/// element type is kept; `replayed` in the counts says which).
template <class T>
strip_counts factor(T* m, int n, const launch& how, const workspace<T>& ws, cudaStream_t stream, cuda::session* profiled = nullptr);

/// Solves U x = c (c = column n of the factored matrix) into x[0, n).
template <class T>
void substitute(T* m, int n, T* x, cudaStream_t stream);

}  // namespace ema::gauss::blocked
