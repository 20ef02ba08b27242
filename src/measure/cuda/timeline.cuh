// Phase times from CUDA events: a variant brackets each phase of its stream work (h2d, kernel,
// d2h) with begin/end, and publish() adds the elapsed times to the current repetition once the
// stream has reached them. Events come from a per-device pool, so steady-state repetitions create
// none.
#pragma once

#include <cuda_runtime.h>
#include <string_view>
#include <vector>

#include "core/run_context.hpp"

namespace ema::cuda {

class event_timeline {
 public:
  /// Records on `stream`, which belongs to the current device.
  explicit event_timeline(cudaStream_t stream);
  ~event_timeline();
  event_timeline(const event_timeline&) = delete;
  event_timeline& operator=(const event_timeline&) = delete;

  void begin(std::string_view phase);
  void end();
  /// Waits for the last event and adds each phase's elapsed time to `ctx` (summing repeats).
  void publish(run_context& ctx);
  /// The elapsed time of each phase in order, in seconds (after the stream reached them).
  std::vector<double> elapsed();

 private:
  struct span {
    std::string_view phase;
    cudaEvent_t start, stop;
  };
  cudaStream_t stream_;
  int device_ = 0;
  std::vector<span> spans_;
};

}  // namespace ema::cuda
