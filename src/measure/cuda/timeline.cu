#include "measure/cuda/timeline.cuh"

#include <map>

#include "measure/cuda/check.cuh"

namespace ema::cuda {
namespace {

// Free events per device. Variants run on one host thread, so no locking is needed.
std::map<int, std::vector<cudaEvent_t>>& pool() {
  static std::map<int, std::vector<cudaEvent_t>> p;
  return p;
}

cudaEvent_t take(int device) {
  auto& free = pool()[device];
  if (!free.empty()) {
    auto e = free.back();
    free.pop_back();
    return e;
  }
  cudaEvent_t e;
  EMA_CUDA_CHECK(cudaEventCreate(&e));
  return e;
}

}  // namespace

event_timeline::event_timeline(cudaStream_t stream) : stream_(stream) { EMA_CUDA_CHECK(cudaGetDevice(&device_)); }

event_timeline::~event_timeline() {
  auto& free = pool()[device_];
  for (auto& s : spans_) {
    free.push_back(s.start);
    free.push_back(s.stop);
  }
}

void event_timeline::begin(cudaStream_t other) {
  span s{take(device_), take(device_), other ? other : stream_};
  spans_.push_back(s);
  open_.push_back(spans_.size() - 1);
  EMA_CUDA_CHECK(cudaEventRecord(s.start, s.stream));
}

void event_timeline::end() {
  const std::size_t i = open_.back();
  open_.pop_back();
  EMA_CUDA_CHECK(cudaEventRecord(spans_[i].stop, spans_[i].stream));
}

std::vector<double> event_timeline::elapsed() {
  std::vector<double> out;
  if (spans_.empty()) return out;
  for (auto& s : spans_) {
    EMA_CUDA_CHECK(cudaEventSynchronize(s.stop));
    float ms = 0;
    EMA_CUDA_CHECK(cudaEventElapsedTime(&ms, s.start, s.stop));
    out.push_back(ms * 1e-3);
  }
  return out;
}

}  // namespace ema::cuda
