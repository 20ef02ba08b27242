#include <map>

#include "measure/cuda/check.cuh"
#include "measure/cuda/resources.cuh"

namespace ema::cuda {

namespace {

std::map<int, cudaStream_t>& streams() {
  static std::map<int, cudaStream_t> all;
  return all;
}

}  // namespace

void forget_stream(int device) { streams().erase(device); }

cudaStream_t stream(int device) {
  auto& streams = cuda::streams();
  auto it = streams.find(device);
  if (it != streams.end()) return it->second;
  int previous = 0;
  EMA_CUDA_CHECK(cudaGetDevice(&previous));
  make_current(device);
  cudaStream_t s;
  EMA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  make_current(previous);
  return streams[device] = s;
}

void* pinned_scratch(int device, std::size_t bytes) {
  struct buffer {
    void* p = nullptr;
    std::size_t bytes = 0;
  };
  static std::map<int, buffer> buffers;
  auto& b = buffers[device];
  if (b.bytes < bytes) {
    if (b.p) EMA_CUDA_CHECK(cudaFreeHost(b.p));
    EMA_CUDA_CHECK(cudaHostAlloc(&b.p, bytes, cudaHostAllocPortable));
    b.bytes = bytes;
  }
  return b.p;
}

}  // namespace ema::cuda
