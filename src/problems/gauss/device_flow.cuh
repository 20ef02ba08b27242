// gauss on the GPU: what every CUDA variant shares, on the GPU session (measure/cuda/session.cuh).
// The augmented matrix goes to the device in one copy (the source, section 3.1: "the matrix M is
// referenced by one pointer ... so the application does not run n cudaMemcpy calls"); the phases
// are timed as the source measured them: `h2d` (the matrix, apart), `stage1` (elimination) and
// `stage2` (substitution) as the two parts of `kernel`, `d2h` (the solution).
#pragma once

#include <cuda_runtime.h>

#include "measure/cuda/check.cuh"
#include "measure/cuda/session.cuh"
#include "problems/gauss/gauss.hpp"

namespace ema::gauss {

/// [A|b] on the device, row-major, n x (n + 1), allocated in the session's `alloc`.
template <class T>
struct device_system {
  std::size_t n = 0, n1 = 0;
  T* m = nullptr;

  device_system(cuda::session& gpu, const input& in) : n(in.n), n1(in.n + 1), m(gpu.alloc<T>(in.n * (in.n + 1))) {}
  T* data() const { return m; }
  std::size_t count() const { return n * n1; }
  /// Element (i, j) of [A|b] on the device.
  T* at(std::size_t i, std::size_t j) const { return m + i * n1 + j; }
  /// The one copy of the matrix in, timed as `h2d`.
  void upload(cuda::session& gpu, const input& in) const {
    auto h2d = gpu.phase("h2d");
    gpu.upload(m, in.augmented<T>(), count());
  }
};

/// The answer of a pivoting solver from LAPACK's info (the 1-based step of the first exactly zero
/// pivot, 0 if none) and the n unknowns that came back.
template <class T>
output from_lu(int info, const T* x, std::size_t n) {
  output out;
  if (info > 0) {
    out.status = output::state::singular;
    out.step = info - 1;
  } else {
    out.x.assign(x, x + n);
  }
  return out;
}

}  // namespace ema::gauss
