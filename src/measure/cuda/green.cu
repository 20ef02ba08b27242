// measure/gpu.hpp's SM partitions on a CUDA build (issue 32, item 1: the SMs as a processor axis):
// a CUDA green context (driver API, CUDA 12.4+) that holds `k` of a device's streaming
// multiprocessors, made current to the worker's thread, so every kernel the variant launches runs
// on those SMs alone. The driver's functions are looked up at run time through the runtime
// (cudaGetDriverEntryPointByVersion), so ema never links libcuda and runs where no driver is.
// Green contexts share the primary context's memory; a cudaSetDevice would make the primary context
// current again, so the CUDA side of ema makes a device current through make_current
// (resources.cuh), which restores the green context.
#include <cuda.h>

#include <map>
#include <stdexcept>
#include <string>

#include "measure/cuda/check.cuh"
#include "measure/cuda/resources.cuh"
#include "measure/gpu.hpp"

namespace ema::gpu {
namespace {

/// A driver function by name, as the CUDA 12.4 driver declares it; throws naming it when the
/// driver lacks it.
template <class F>
F driver(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12040, cudaEnableDefault, &found) != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn) {
    cudaGetLastError();
    throw std::runtime_error(std::string("the CUDA driver has no ") + name + " (green contexts need a CUDA 12.4 driver or newer)");
  }
  return reinterpret_cast<F>(fn);
}

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  auto get_string = driver<CUresult (*)(CUresult, const char**)>("cuGetErrorString");
  const char* text = nullptr;
  get_string(r, &text);
  throw std::runtime_error(std::string(what) + " failed: " + (text ? std::string(text) : "CUresult " + std::to_string(static_cast<int>(r))));
}

/// The device's SMs as a resource. No context is made (the plan asks this in ema's own process,
/// which must not hold a context through the sweep); the driver is initialised by gpu::query.
CUdevResource device_sms(int device) {
  if (device >= device_count()) throw std::runtime_error("no CUDA device " + std::to_string(device));
  CUdevice dev = 0;
  check(driver<CUresult (*)(CUdevice*, int)>("cuDeviceGet")(&dev, device), "cuDeviceGet");
  CUdevResource all{};
  check(driver<CUresult (*)(CUdevice, CUdevResource*, CUdevResourceType)>("cuDeviceGetDevResource")(dev, &all, CU_DEV_RESOURCE_TYPE_SM),
        "cuDeviceGetDevResource (SM)");
  return all;
}

/// The green context made current per device by restrict_sms.
std::map<int, CUcontext>& green_contexts() {
  static std::map<int, CUcontext> contexts;
  return contexts;
}

}  // namespace

sm_partitioning sm_partitions(int device) {
  sm_partitioning p;
  try {
    const auto all = device_sms(device);
    p.sm_count = static_cast<int>(all.sm.smCount);
    p.min_partition = static_cast<int>(all.sm.minSmPartitionSize);
    p.alignment = static_cast<int>(all.sm.smCoscheduledAlignment);
    if (p.min_partition <= 0) p.min_partition = 1;
    if (p.alignment <= 0) p.alignment = 1;
  } catch (const std::exception& e) {
    p.unavailable = e.what();
  }
  return p;
}

int restrict_sms(int device, int sms) {
  EMA_CUDA_CHECK(cudaSetDevice(device));
  EMA_CUDA_CHECK(cudaFree(nullptr));  // the primary context, which a green context retains
  auto all = device_sms(device);
  CUdevResource group{};
  CUdevResource* chosen = &all;
  if (sms != static_cast<int>(all.sm.smCount)) {
    unsigned int groups = 1;
    check(driver<CUresult (*)(CUdevResource*, unsigned int*, const CUdevResource*, CUdevResource*, unsigned int, unsigned int)>(
              "cuDevSmResourceSplitByCount")(&group, &groups, &all, nullptr, 0, static_cast<unsigned int>(sms)),
          "cuDevSmResourceSplitByCount");
    if (groups < 1) throw std::runtime_error("the device cannot be split into a group of " + std::to_string(sms) + " SMs");
    chosen = &group;
  }
  CUdevResourceDesc desc{};
  check(driver<CUresult (*)(CUdevResourceDesc*, CUdevResource*, unsigned int)>("cuDevResourceGenerateDesc")(&desc, chosen, 1),
        "cuDevResourceGenerateDesc");
  CUdevice dev = 0;
  check(driver<CUresult (*)(CUdevice*, int)>("cuDeviceGet")(&dev, device), "cuDeviceGet");
  CUgreenCtx green{};
  check(driver<CUresult (*)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned int)>("cuGreenCtxCreate")(&green, desc, dev,
                                                                                                         CU_GREEN_CTX_DEFAULT_STREAM),
        "cuGreenCtxCreate");
  CUcontext ctx{};
  check(driver<CUresult (*)(CUcontext*, CUgreenCtx)>("cuCtxFromGreenCtx")(&ctx, green), "cuCtxFromGreenCtx");
  check(driver<CUresult (*)(CUcontext)>("cuCtxSetCurrent")(ctx), "cuCtxSetCurrent");
  green_contexts()[device] = ctx;
  cuda::forget_stream(device);  // a stream made before belongs to the primary context, on every SM
  // The SMs the context holds, as the driver gives them (a split rounds up to its granularity).
  CUdevResource held{};
  check(driver<CUresult (*)(CUgreenCtx, CUdevResource*, CUdevResourceType)>("cuGreenCtxGetDevResource")(green, &held, CU_DEV_RESOURCE_TYPE_SM),
        "cuGreenCtxGetDevResource (SM)");
  return static_cast<int>(held.sm.smCount);
}

}  // namespace ema::gpu

namespace ema::cuda {

void make_current(int device) {
  const auto& green = gpu::green_contexts();
  if (auto it = green.find(device); it != green.end()) {
    static const auto set_current = gpu::driver<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
    if (set_current(it->second) != CUDA_SUCCESS) throw std::runtime_error("cuCtxSetCurrent of the green context failed");
    return;
  }
  EMA_CUDA_CHECK(cudaSetDevice(device));
}

}  // namespace ema::cuda
