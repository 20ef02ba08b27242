// Phase times from CUDA events: the GPU session (session.cuh) brackets each phase of its stream
// work with begin/end and reads the elapsed times once the stream has reached them. Events come
// from a per-device pool, so steady-state repetitions create none.
#pragma once

#include <cuda_runtime.h>
#include <vector>

namespace ema::cuda {

class event_timeline {
 public:
  /// Records on `stream`, which belongs to the current device.
  explicit event_timeline(cudaStream_t stream);
  ~event_timeline();
  event_timeline(const event_timeline&) = delete;
  event_timeline& operator=(const event_timeline&) = delete;

  /// Opens a span; spans nest (a span opened inside another closes first). On `other`, a
  /// stream of the same device, where given (its stop is recorded there too).
  void begin(cudaStream_t other = nullptr);
  /// Closes the innermost open span.
  void end();
  /// The elapsed time of each phase in order, in seconds (after the stream reached them).
  std::vector<double> elapsed();

 private:
  struct span {
    cudaEvent_t start, stop;
    cudaStream_t stream;
  };
  cudaStream_t stream_;
  int device_ = 0;
  std::vector<span> spans_;
  std::vector<std::size_t> open_;  // indices of the spans begun and not yet ended, innermost last
};

}  // namespace ema::cuda
