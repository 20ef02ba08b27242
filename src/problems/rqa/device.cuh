// rqa on the GPU: what every CUDA variant shares, on the GPU session (measure/cuda/session.cuh).
// The series goes to the device in one copy (`h2d`), the plot is the same `plot` as on the host
// over that copy (rqa.hpp: the same arithmetic, so the same cells), and a kernel is instantiated
// per norm.
#pragma once

#include <cuda_runtime.h>
#include <utility>

#include "measure/cuda/check.cuh"
#include "measure/cuda/session.cuh"
#include "problems/rqa/rqa.hpp"

namespace ema::rqa {

/// Calls f(std::integral_constant<norm_kind, K>{}) for the plot's norm (a kernel per norm).
template <class F>
decltype(auto) with_norm(norm_kind norm, F&& f) {
  switch (norm) {
    case norm_kind::max:
      return f(std::integral_constant<norm_kind, norm_kind::max>{});
    case norm_kind::manhattan:
      return f(std::integral_constant<norm_kind, norm_kind::manhattan>{});
    default:
      return f(std::integral_constant<norm_kind, norm_kind::euclidean>{});
  }
}

/// The series on the session's device (allocated in its `alloc`) and the plot over it.
struct device_series {
  double* x;
  plot p;

  device_series(cuda::session& gpu, const input& in) : x(gpu.alloc<double>(in.x.size())), p(in.view(x)) {}
  /// Copies the series in, timed as `h2d`.
  void upload(cuda::session& gpu, const input& in) const {
    auto h2d = gpu.phase("h2d");
    gpu.upload(x, in.x.data(), in.x.size());
  }
};

}  // namespace ema::rqa
