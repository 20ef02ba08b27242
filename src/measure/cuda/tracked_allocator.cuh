// Library temporaries that are accounted: tracked_allocator registers its bytes with the point's
// device_memory_tracker (Thrust's execution policy takes it), as the GPU session does for its own
// buffers (session.cuh), so a point's peak device memory is exact.
#pragma once

#include <cstddef>
#include <cuda_runtime.h>

#include "measure/cuda/check.cuh"
#include "core/device_memory.hpp"

namespace ema::cuda {

/// A byte allocator for library temporaries (thrust::cuda::par(alloc)) that calls cudaMalloc and
/// cudaFree exactly as the library's default would, and accounts every byte.
struct tracked_allocator {
  using value_type = char;
  device_memory_tracker* tracker;

  char* allocate(std::ptrdiff_t n) {
    char* p = nullptr;
    EMA_CUDA_CHECK(cudaMalloc(&p, static_cast<std::size_t>(n)));
    tracker->allocated(static_cast<std::size_t>(n));
    return p;
  }
  void deallocate(char* p, std::size_t n) {
    EMA_CUDA_CHECK_NOTHROW(cudaFree(p));
    tracker->released(n);
  }
};

}  // namespace ema::cuda
