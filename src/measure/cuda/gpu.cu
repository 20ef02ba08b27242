// measure/gpu.hpp on a CUDA build: device discovery, pinned memory, context start-up.
#include <dlfcn.h>
#include <string>

#include "core/errors.hpp"
#include "measure/cuda/check.cuh"
#include "measure/gpu.hpp"

namespace ema::gpu {

const runtime_info& query() {
  static const runtime_info info = [] {
    runtime_info r;
    r.built_with_cuda = true;
    cudaRuntimeGetVersion(&r.runtime_version);
    cudaDriverGetVersion(&r.driver_version);
    int count = 0;
    if (auto e = cudaGetDeviceCount(&count); e != cudaSuccess) {
      cudaGetLastError();
      if (e == cudaErrorInsufficientDriver && !dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) && !dlopen("libcuda.so.1", RTLD_LAZY))
        r.unavailable = "no CUDA device (no NVIDIA driver on this machine)";
      else
        r.unavailable = std::string("no CUDA device (") + cudaGetErrorString(e) + ")";
      return r;
    }
    if (count == 0) {
      r.unavailable = "no CUDA device";
      return r;
    }
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp p{};
      if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
      device_info i;
      i.index = d;
      i.name = p.name;
      char bus[32] = {};
      cudaDeviceGetPCIBusId(bus, sizeof bus, d);
      i.pci_bus_id = bus;
      i.cc_major = p.major;
      i.cc_minor = p.minor;
      i.sm_count = p.multiProcessorCount;
      i.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
      i.max_threads_per_block = p.maxThreadsPerBlock;
      i.memory_bytes = p.totalGlobalMem;
      i.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
      i.shared_memory_per_sm_bytes = static_cast<std::uint64_t>(p.sharedMemPerMultiprocessor);
      r.devices.push_back(i);
    }
    if (r.devices.empty()) r.unavailable = "no CUDA device could be queried";
    return r;
  }();
  return info;
}

void* allocate_pinned(std::size_t bytes) {
  void* p = nullptr;
  if (auto e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable); e != cudaSuccess) {
    cudaGetLastError();
    throw out_of_memory("cannot allocate " + std::to_string(bytes) + " bytes of pinned host memory: " + cudaGetErrorString(e));
  }
  return p;
}

void free_pinned(void* p) noexcept { EMA_CUDA_CHECK_NOTHROW(cudaFreeHost(p)); }

void initialise(int count) {
  for (int d = count - 1; d >= 0; --d) {
    EMA_CUDA_CHECK(cudaSetDevice(d));
    EMA_CUDA_CHECK(cudaFree(nullptr));
  }
}

}  // namespace ema::gpu
