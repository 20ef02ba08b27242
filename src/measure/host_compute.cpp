// The host's compute roof (issue 31, item 3): the floating-point throughput of independent
// multiply-add chains, enough of them (12) to cover an FMA's latency on two pipes, each a vector
// as wide as the instruction set allows. Every chain converges to 1 (x <- 0.999999 x + 1e-6), so no
// value overflows or turns subnormal, and the sum of all is kept, so no chain is elided.
#include "measure/host_compute.hpp"

#include <chrono>
#include <cstdint>
#include <fmt/format.h>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define EMA_HOST_X86 1
#endif

#include "measure/stats.hpp"

namespace ema {
namespace {

constexpr int chains = 12;

// The portable kernel: GCC's 16-byte vectors, a multiply then an add (two operations, two
// roundings), which every CPU runs; the instruction sets below beat it where they exist.
template <class T>
double portable_kernel(std::int64_t rounds, T seed) {
  using vec [[gnu::vector_size(16)]] = T;
  constexpr int lanes = 16 / sizeof(T);
  vec acc[chains];
  vec m, a;
  for (int l = 0; l < lanes; ++l) m[l] = T(0.999999), a[l] = T(1e-6);
  for (int k = 0; k < chains; ++k)
    for (int l = 0; l < lanes; ++l) acc[k][l] = seed + T(k);
  for (std::int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 16
    for (int k = 0; k < chains; ++k) acc[k] = acc[k] * m + a;
  }
  double s = 0;
  for (int k = 0; k < chains; ++k)
    for (int l = 0; l < lanes; ++l) s += static_cast<double>(acc[k][l]);
  return s;
}

#ifdef EMA_HOST_X86
// One kernel per instruction set and precision: `rounds` rounds of `chains` fused multiply-adds.
#define EMA_FMA_KERNEL(NAME, TARGET, VEC, T, LANES, SET1, FMADD, STOREU)                      \
  __attribute__((target(TARGET))) double NAME(std::int64_t rounds, T seed) {                  \
    const VEC m = SET1(T(0.999999)), a = SET1(T(1e-6));                                       \
    VEC acc[chains];                                                                          \
    for (int k = 0; k < chains; ++k) acc[k] = SET1(seed + T(k));                              \
    for (std::int64_t r = 0; r < rounds; ++r) {                                               \
      _Pragma("GCC unroll 16") for (int k = 0; k < chains; ++k) acc[k] = FMADD(acc[k], m, a); \
    }                                                                                         \
    T out[LANES];                                                                             \
    double s = 0;                                                                             \
    for (int k = 0; k < chains; ++k) {                                                        \
      STOREU(out, acc[k]);                                                                    \
      for (int l = 0; l < (LANES); ++l) s += static_cast<double>(out[l]);                     \
    }                                                                                         \
    return s;                                                                                 \
  }

EMA_FMA_KERNEL(avx2_f64, "avx2,fma", __m256d, double, 4, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_storeu_pd)
EMA_FMA_KERNEL(avx2_f32, "avx2,fma", __m256, float, 8, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps)
EMA_FMA_KERNEL(avx512_f64, "avx512f", __m512d, double, 8, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_storeu_pd)
EMA_FMA_KERNEL(avx512_f32, "avx512f", __m512, float, 16, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps)
#undef EMA_FMA_KERNEL
#endif

/// A kernel this CPU runs, with the flops one round does.
struct kernel {
  const char* name;
  double flops_per_round;
  double (*run)(std::int64_t rounds, double seed);
};

std::vector<kernel> kernels(bool f64) {
  std::vector<kernel> out;
  if (f64)
    out.push_back({"16-byte vectors, multiply + add", 2.0 * chains * 2, [](std::int64_t r, double s) { return portable_kernel<double>(r, s); }});
  else
    out.push_back({"16-byte vectors, multiply + add", 2.0 * chains * 4,
                   [](std::int64_t r, double s) { return portable_kernel<float>(r, static_cast<float>(s)); }});
#ifdef EMA_HOST_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    if (f64)
      out.push_back({"AVX2 FMA", 2.0 * chains * 4, [](std::int64_t r, double s) { return avx2_f64(r, s); }});
    else
      out.push_back({"AVX2 FMA", 2.0 * chains * 8, [](std::int64_t r, double s) { return avx2_f32(r, static_cast<float>(s)); }});
  }
  if (__builtin_cpu_supports("avx512f")) {
    if (f64)
      out.push_back({"AVX-512 FMA", 2.0 * chains * 8, [](std::int64_t r, double s) { return avx512_f64(r, s); }});
    else
      out.push_back({"AVX-512 FMA", 2.0 * chains * 16, [](std::int64_t r, double s) { return avx512_f32(r, static_cast<float>(s)); }});
  }
#endif
  return out;
}

/// Seconds of one run of `k` on `threads` threads, each `rounds` rounds.
double time_once(const kernel& k, std::int64_t rounds, int threads, volatile double& sink) {
  const auto t0 = std::chrono::steady_clock::now();
  double sum = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sum)
  {
#ifdef _OPENMP
    sum += k.run(rounds, 1.0 + 1e-3 * omp_get_thread_num());
#else
    sum += k.run(rounds, 1.0);
#endif
  }
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sink = sink + sum;
  return dt;
}

}  // namespace

host_flops host_fma_throughput(bool f64, int threads) {
  host_flops best;
  volatile double sink = 0;
  for (const auto& k : kernels(f64)) {
    // Rounds enough for 10 ms on one thread: clock ramps and the vector unit's warm-up are past.
    std::int64_t rounds = 1 << 12;
    while (rounds < (std::int64_t{1} << 34) && time_once(k, rounds, 1, sink) < 0.01) rounds *= 2;
    std::vector<double> t;
    for (int rep = 0; rep < 5; ++rep) {
      const double dt = time_once(k, rounds, threads, sink);
      if (rep) t.push_back(dt);  // rep 0 wakes the threads
    }
    const double flops = k.flops_per_round * static_cast<double>(rounds) * threads / median(t);
    if (flops > best.flops) best = {flops, fmt::format("{}, {} chains, {} thread{}", k.name, chains, threads, threads == 1 ? "" : "s")};
  }
  return best;
}

}  // namespace ema
