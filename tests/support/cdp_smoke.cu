// The RDC build kind (src/problems/CMakeLists.txt, ema_rdc_library) checked before a variant needs
// it: a kernel that launches kernels from the device, CUDA 12's dynamic parallelism (CDP2: no
// device-side synchronisation; fire-and-forget launches, and a tail launch that runs after its
// parent's grid and everything it launched). The sorting study's CUDA-DP variants
// (Nogueira, 004_96c7929830a11cf7.txt) are built this way.
#include "support/cdp_smoke.hpp"

#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

namespace ema::test {
namespace {

__global__ void child(int* out, int base, int count, unsigned* launches) {
  const int i = base + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < base + count) out[i] = 2 * i;
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(launches, 1u);
}

__global__ void check_tail(const int* out, int n, int* bad) {
  for (int i = 0; i < n; ++i)
    if (out[i] != 2 * i) atomicAdd(bad, 1);
}

__global__ void parent(int* out, int n, int parts, unsigned* launches, int* bad) {
  const int share = (n + parts - 1) / parts;
  for (int p = 0; p < parts; ++p) {
    const int base = p * share, count = min(share, n - base);
    if (count > 0) child<<<(count + 63) / 64, 64, 0, cudaStreamFireAndForget>>>(out, base, count, launches);
  }
  check_tail<<<1, 1, 0, cudaStreamTailLaunch>>>(out, n, bad);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

cdp_result run_cdp_smoke(int n, int parts) {
  int* out = nullptr;
  unsigned* launches = nullptr;
  int* bad = nullptr;
  check(cudaMalloc(&out, sizeof(int) * static_cast<std::size_t>(n)), "cudaMalloc");
  check(cudaMalloc(&launches, sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&bad, sizeof(int)), "cudaMalloc");
  check(cudaMemset(out, 0xff, sizeof(int) * static_cast<std::size_t>(n)), "cudaMemset");
  check(cudaMemset(launches, 0, sizeof(unsigned)), "cudaMemset");
  check(cudaMemset(bad, 0, sizeof(int)), "cudaMemset");
  parent<<<1, 1>>>(out, n, parts, launches, bad);
  check(cudaGetLastError(), "parent launch");
  check(cudaDeviceSynchronize(), "parent");
  cdp_result r;
  check(cudaMemcpy(&r.device_launches, launches, sizeof(unsigned), cudaMemcpyDeviceToHost), "copy");
  check(cudaMemcpy(&r.wrong_in_tail, bad, sizeof(int), cudaMemcpyDeviceToHost), "copy");
  cudaFree(out);
  cudaFree(launches);
  cudaFree(bad);
  return r;
}

}  // namespace ema::test
