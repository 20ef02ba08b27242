// The device half of `ema probe`: the best streaming-read bandwidth over several launch
// configurations, device-to-device copy bandwidth, kernel launch overhead and latency, pinned
// host<->device bandwidth, and the FMA pipes' single- and double-precision throughput (the
// roofline's compute roof, issue 31 item 3). These are the ceilings that tables quote achieved bandwidth against,
// so the read kernel is written to be as fast as a plain read can be: 16-byte loads, several in
// flight per thread, a grid sized to the device.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "measure/cuda/check.cuh"
#include "measure/gpu.hpp"
#include "measure/stats.hpp"

namespace ema::gpu {
namespace {

__global__ void fill_kernel(uint4* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    auto h = static_cast<unsigned>(i * 2654435761u) | 1u;
    p[i] = make_uint4(h, h ^ 0x9e3779b9u, h * 3u, h + 7u);
  }
}

template <int Unroll>
__global__ void read_kernel(const uint4* __restrict__ p, std::size_t n, unsigned* sink) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  unsigned acc = 0;
  for (; i + (Unroll - 1) * stride < n; i += Unroll * stride) {
    uint4 v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) v[u] = __ldcs(p + i + u * stride);
#pragma unroll
    for (int u = 0; u < Unroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n; i += stride) {
    uint4 v = __ldcs(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffffu) atomicAdd(sink, 1u);  // keeps the loads; its truth does not matter
}

__global__ void empty_kernel() {}

// Independent FMA chains per thread, each converging to 1 (x <- 0.999999 x + 1e-6): the compute
// roof. `m` and `a` come as arguments so that the compiler cannot fold the chains; the sum is
// written only when it is impossible, which it cannot know.
template <class T, int Chains>
__global__ void fma_kernel(int rounds, T m, T a, T* sink) {
  T acc[Chains];
#pragma unroll
  for (int k = 0; k < Chains; ++k) acc[k] = T(1) + T(1e-3) * static_cast<T>((threadIdx.x + k) & 15);
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < Chains; ++k) acc[k] = fma(acc[k], m, a);
  }
  T s = 0;
#pragma unroll
  for (int k = 0; k < Chains; ++k) s += acc[k];
  if (s == T(-1)) *sink = s;
}

struct event_pair {
  cudaEvent_t a, b;
  event_pair() {
    EMA_CUDA_CHECK(cudaEventCreate(&a));
    EMA_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~event_pair() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  template <class F>
  double time(cudaStream_t s, F&& f) {
    EMA_CUDA_CHECK(cudaEventRecord(a, s));
    f();
    EMA_CUDA_CHECK(cudaEventRecord(b, s));
    EMA_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    EMA_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3;
  }
};

template <int Unroll>
double time_read(const uint4* p, std::size_t n, unsigned* sink, int blocks, int threads, cudaStream_t s, int reps) {
  event_pair ev;
  std::vector<double> t;
  for (int r = 0; r < reps + 1; ++r) {
    double dt = ev.time(s, [&] { read_kernel<Unroll><<<blocks, threads, 0, s>>>(p, n, sink); });
    EMA_CUDA_CHECK_LAUNCH();
    if (r) t.push_back(dt);
  }
  return median(t);
}

/// The best FMA throughput over a few grids, with the configuration that achieved it.
template <class T>
double time_fma(const cudaDeviceProp& prop, cudaStream_t s, std::string& config) {
  T* sink = nullptr;
  EMA_CUDA_CHECK(cudaMalloc(&sink, sizeof(T)));
  event_pair ev;
  constexpr int chains = 8, threads = 256;
  double best = 0;
  for (int per_sm : {4, 8}) {
    const int blocks = prop.multiProcessorCount * per_sm;
    // Rounds for at least 5 ms a launch, found by doubling from a short run.
    int rounds = 256;
    for (;;) {
      const double t = ev.time(s, [&] { fma_kernel<T, chains><<<blocks, threads, 0, s>>>(rounds, T(0.999999), T(1e-6), sink); });
      EMA_CUDA_CHECK_LAUNCH();
      if (t > 0.005 || rounds >= (1 << 24)) break;
      rounds *= 2;
    }
    std::vector<double> t;
    for (int r = 0; r < 6; ++r) {
      const double dt = ev.time(s, [&] { fma_kernel<T, chains><<<blocks, threads, 0, s>>>(rounds, T(0.999999), T(1e-6), sink); });
      EMA_CUDA_CHECK_LAUNCH();
      if (r) t.push_back(dt);
    }
    const double flops = 2.0 * chains * threads * static_cast<double>(blocks) * rounds / median(t);
    if (flops > best) {
      best = flops;
      config = std::to_string(blocks) + " blocks x " + std::to_string(threads) + " threads, " + std::to_string(chains) + " FMA chains each";
    }
  }
  EMA_CUDA_CHECK(cudaFree(sink));
  return best;
}

/// The bytes a read ceiling streams: at least 16 times the L2, so the cache cannot help, at most a
/// quarter of what is free and `cap`.
std::size_t read_buffer_bytes(const cudaDeviceProp& prop, std::size_t cap) {
  std::size_t free_b = 0, total_b = 0;
  EMA_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t bytes = std::min<std::size_t>(cap, free_b / 4);
  return std::max<std::size_t>(bytes, std::size_t{16} * prop.l2CacheSize) / 16 * 16;
}

/// The best streaming read of `a` (n 16-byte words) over a few grids of blocks on `sms` SMs, with
/// the configuration that achieved it.
double best_read(const uint4* a, std::size_t n, unsigned* sink, int sms, int max_threads_per_sm, cudaStream_t s, std::string& config) {
  const std::size_t bytes = n * sizeof(uint4);
  double best = 0;
  for (int threads : {256, 512, 1024}) {
    for (int per_sm : {1, 2, 4, 8}) {
      if (threads * per_sm > max_threads_per_sm) continue;
      const int blocks = sms * per_sm;
      for (int unroll : {2, 4, 8}) {
        double t = unroll == 2   ? time_read<2>(a, n, sink, blocks, threads, s, 9)
                   : unroll == 4 ? time_read<4>(a, n, sink, blocks, threads, s, 9)
                                 : time_read<8>(a, n, sink, blocks, threads, s, 9);
        double bw = static_cast<double>(bytes) / t;
        if (bw > best) {
          best = bw;
          config = std::to_string(blocks) + " blocks x " + std::to_string(threads) + " threads, " + std::to_string(unroll) +
                   " x 16-byte loads in flight, " + std::to_string(bytes >> 20) + " MiB";
        }
      }
    }
  }
  return best;
}

}  // namespace

double probe_partition_read(int device, int sms) {
  const int held = restrict_sms(device, sms);  // current from here on: this process's last measurement
  cudaDeviceProp prop{};
  EMA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  cudaStream_t s;
  EMA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::size_t bytes = read_buffer_bytes(prop, std::size_t{1} << 30);
  const std::size_t n = bytes / sizeof(uint4);
  uint4* a = nullptr;
  unsigned* sink = nullptr;
  EMA_CUDA_CHECK(cudaMalloc(&a, bytes));
  EMA_CUDA_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  fill_kernel<<<held * 4, 256, 0, s>>>(a, n);
  EMA_CUDA_CHECK_LAUNCH();
  std::string config;
  const double bw = best_read(a, n, sink, held, prop.maxThreadsPerMultiProcessor, s, config);
  EMA_CUDA_CHECK(cudaStreamSynchronize(s));
  EMA_CUDA_CHECK(cudaFree(a));
  EMA_CUDA_CHECK(cudaFree(sink));
  EMA_CUDA_CHECK(cudaStreamDestroy(s));
  return bw;
}

device_ceilings probe_device(int device, bool read_only) {
  EMA_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  EMA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  cudaStream_t s;
  EMA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::size_t bytes = read_buffer_bytes(prop, std::size_t{2} << 30);
  const std::size_t n = bytes / sizeof(uint4);

  uint4 *a = nullptr, *b = nullptr;
  unsigned* sink = nullptr;
  EMA_CUDA_CHECK(cudaMalloc(&a, bytes));
  EMA_CUDA_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  fill_kernel<<<prop.multiProcessorCount * 4, 256, 0, s>>>(a, n);
  EMA_CUDA_CHECK_LAUNCH();

  device_ceilings c;
  c.read_bw = best_read(a, n, sink, prop.multiProcessorCount, prop.maxThreadsPerMultiProcessor, s, c.read_config);
  std::string f32_config;
  c.fma_f32 = time_fma<float>(prop, s, f32_config);
  c.fma_f64 = time_fma<double>(prop, s, c.fma_config);

  if (!read_only) {
    event_pair ev;
    EMA_CUDA_CHECK(cudaMalloc(&b, bytes));
    std::vector<double> t;
    for (int r = 0; r < 8; ++r) {
      double dt = ev.time(s, [&] { EMA_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s)); });
      if (r) t.push_back(dt);
    }
    c.copy_bw = 2.0 * static_cast<double>(bytes) / median(t);

    constexpr int launches = 2000;
    empty_kernel<<<1, 1, 0, s>>>();
    EMA_CUDA_CHECK(cudaStreamSynchronize(s));
    t.clear();
    for (int r = 0; r < 5; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < launches; ++i) empty_kernel<<<1, 1, 0, s>>>();
      EMA_CUDA_CHECK(cudaStreamSynchronize(s));
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / launches);
    }
    EMA_CUDA_CHECK_LAUNCH();
    c.launch_overhead = median(t);
    t.clear();
    for (int i = 0; i < 500; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      empty_kernel<<<1, 1, 0, s>>>();
      EMA_CUDA_CHECK(cudaStreamSynchronize(s));
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    c.launch_latency = median(t);

    const std::size_t host_bytes = std::min(std::size_t{256} << 20, bytes);
    void* h = nullptr;
    EMA_CUDA_CHECK(cudaHostAlloc(&h, host_bytes, cudaHostAllocPortable));
    std::vector<double> up, down;
    for (int r = 0; r < 6; ++r) {
      double u = ev.time(s, [&] { EMA_CUDA_CHECK(cudaMemcpyAsync(b, h, host_bytes, cudaMemcpyHostToDevice, s)); });
      double d = ev.time(s, [&] { EMA_CUDA_CHECK(cudaMemcpyAsync(h, b, host_bytes, cudaMemcpyDeviceToHost, s)); });
      if (r) {
        up.push_back(u);
        down.push_back(d);
      }
    }
    c.h2d_bw = static_cast<double>(host_bytes) / median(up);
    c.d2h_bw = static_cast<double>(host_bytes) / median(down);
    EMA_CUDA_CHECK(cudaFreeHost(h));
    EMA_CUDA_CHECK(cudaFree(b));
  }
  EMA_CUDA_CHECK(cudaFree(a));
  EMA_CUDA_CHECK(cudaFree(sink));
  EMA_CUDA_CHECK(cudaStreamDestroy(s));
  EMA_CUDA_CHECK(cudaSetDevice(0));
  return c;
}

}  // namespace ema::gpu
