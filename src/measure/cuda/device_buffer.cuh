// Device memory that is always accounted: a device_buffer registers its bytes with the point's
// device_memory_tracker, and tracked_allocator does the same for library calls (Thrust's
// execution policy takes it), so a point's peak device memory is exact.
#pragma once

#include <cstddef>
#include <cuda_runtime.h>
#include <utility>

#include "measure/cuda/check.cuh"
#include "core/device_memory.hpp"

namespace ema::cuda {

/// An array of T on the current device, freed on destruction.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(std::size_t n, device_memory_tracker& tracker) : size_(n), tracker_(&tracker) {
    if (n) {
      EMA_CUDA_CHECK(cudaMalloc(&data_, n * sizeof(T)));
      tracker_->allocated(bytes());
    }
  }
  device_buffer(device_buffer&& o) noexcept { swap(o); }
  device_buffer& operator=(device_buffer&& o) noexcept {
    device_buffer tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { reset(); }

  /// Frees now (so the `free` phase can be timed apart from the rest).
  void reset() noexcept {
    if (data_) {
      EMA_CUDA_CHECK_NOTHROW(cudaFree(data_));
      tracker_->released(bytes());
      data_ = nullptr;
    }
  }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  void swap(device_buffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(tracker_, o.tracker_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
  device_memory_tracker* tracker_ = nullptr;
};

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
