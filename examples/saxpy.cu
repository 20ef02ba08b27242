// An example of measuring your own CUDA code with `ema exec` (docs/cli/exec.md, "Your own GPU
// code"): y = a·x + y over n floats, the memory-bound kernel every GPU course starts with. One
// program, two modes:
//   saxpy gen N FILE SEED   writes the input: N pseudo-random floats x, then N floats y (binary)
//   saxpy run FILE          reads it, copies it to the GPU, runs the kernel, copies y back,
//                           checks every element against the host, and reports its phases on
//                           standard output as `ema-phase NAME SECONDS` lines: init (the CUDA
//                           context), alloc, h2d, kernel, d2h (CUDA events on the GPU, the host
//                           clock for the first two; the kernel launched once before, to load it)
// so that ema records kernel time beside total time, as for its own CUDA variants.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <vector>

namespace {

// Stops the program with the CUDA error's text; ema records the point as failed with it.
void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "saxpy: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

__global__ void saxpy(std::size_t n, float a, const float* x, float* y) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = a * x[i] + y[i];
}

constexpr float a = 2.5f;

int generate(const char* count, const char* path, const char* seed_text) {
  // N: digits only (strtoull would take "-5" as a huge number), at most 2^31 (a 16 GiB input).
  constexpr unsigned long long most = 1ull << 31;
  char* end = nullptr;
  const unsigned long long n = count[0] >= '0' && count[0] <= '9' ? std::strtoull(count, &end, 10) : 0;
  if (n == 0 || *end != '\0' || n > most) {
    std::fprintf(stderr, "saxpy gen: N must be an integer from 1 to %llu, got '%s'\n", most, count);
    return 2;
  }
  std::uint64_t state = std::strtoull(seed_text, nullptr, 10) | 1;
  std::vector<float> v;
  try {
    v.resize(2 * n);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "saxpy gen: no memory for 2 x %llu floats\n", n);
    return 1;
  }
  for (auto& f : v) {  // xorshift64: the same input for the same seed
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    f = static_cast<float>(state >> 40) / static_cast<float>(1 << 24);  // in [0, 1)
  }
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  if (!out) {
    std::fprintf(stderr, "saxpy gen: cannot write %s\n", path);
    return 2;
  }
  return 0;
}

int run(const char* path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    std::fprintf(stderr, "saxpy run: %s is not a file that saxpy gen wrote\n", path);
    return 2;
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    std::fprintf(stderr, "saxpy run: cannot read %s\n", path);
    return 2;
  }
  const auto bytes = static_cast<std::size_t>(in.tellg());
  if (bytes == 0 || bytes % (2 * sizeof(float)) != 0) {
    std::fprintf(stderr, "saxpy run: %s holds %zu bytes, not 2·N floats\n", path, bytes);
    return 2;
  }
  const std::size_t n = bytes / (2 * sizeof(float));
  std::vector<float> host(2 * n);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(host.data()), static_cast<std::streamsize>(bytes));

  using clock = std::chrono::steady_clock;
  // The CUDA context is made on first use (about 0.1 s): its own phase, so that alloc is the
  // allocation alone.
  const auto t_init = clock::now();
  check(cudaFree(nullptr), "CUDA initialisation");
  const double init = std::chrono::duration<double>(clock::now() - t_init).count();
  const auto t0 = clock::now();
  float *x = nullptr, *y = nullptr;
  check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc x");
  check(cudaMalloc(&y, n * sizeof(float)), "cudaMalloc y");
  const double alloc = std::chrono::duration<double>(clock::now() - t0).count();

  // A first launch loads the kernel's module (CUDA loads lazily, 0.1 ms or more): done once
  // before the timed launch, as any benchmark warms up, so that kernel is the kernel's time.
  saxpy<<<1, 32>>>(0, a, x, y);
  check(cudaDeviceSynchronize(), "the warm-up launch");
  cudaEvent_t e[4];
  for (auto& ev : e) check(cudaEventCreate(&ev), "cudaEventCreate");
  check(cudaEventRecord(e[0]), "cudaEventRecord");
  check(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy x to the device");
  check(cudaMemcpy(y, host.data() + n, n * sizeof(float), cudaMemcpyHostToDevice), "copy y to the device");
  check(cudaEventRecord(e[1]), "cudaEventRecord");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
  saxpy<<<sms * 8, 256>>>(n, a, x, y);
  check(cudaGetLastError(), "saxpy launch");
  check(cudaEventRecord(e[2]), "cudaEventRecord");
  std::vector<float> result(n);
  check(cudaMemcpy(result.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost), "copy y back");
  check(cudaEventRecord(e[3]), "cudaEventRecord");
  check(cudaEventSynchronize(e[3]), "cudaEventSynchronize");
  float ms[3];
  for (int i = 0; i < 3; ++i) check(cudaEventElapsedTime(&ms[i], e[i], e[i + 1]), "cudaEventElapsedTime");
  check(cudaFree(x), "cudaFree");
  check(cudaFree(y), "cudaFree");

  // The check: the host's a·x + y, within a rounding of the device's (which may fuse it).
  for (std::size_t i = 0; i < n; ++i) {
    const float want = std::fma(a, host[i], host[n + i]);
    if (std::fabs(result[i] - want) > 1e-6f * std::fabs(want) + 1e-7f) {
      std::fprintf(stderr, "saxpy run: y[%zu] = %g, the host says %g\n", i, result[i], want);
      return 1;
    }
  }
  std::printf("ema-phase init %.9f\nema-phase alloc %.9f\nema-phase h2d %.9f\nema-phase kernel %.9f\nema-phase d2h %.9f\n", init, alloc, ms[0] / 1e3,
              ms[1] / 1e3, ms[2] / 1e3);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "gen" && argc == 5) return generate(argv[2], argv[3], argv[4]);
  if (mode == "run" && argc == 3) return run(argv[2]);
  std::fprintf(stderr, "usage: saxpy gen N FILE SEED | saxpy run FILE\n");
  return 2;
}
