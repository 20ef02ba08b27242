// stencil on the CPU: the row kernel (host_step.hpp). The AVX2 path evaluates cell_update's chain
// with _mm256_fmadd (one rounding per step of the chain, as fmaf), 8 floats or 4 doubles at a time;
// the portable path is the scalar chain, which the compiler may vectorise for the CPU it targets.
#include "problems/stencil/host_step.hpp"

#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define EMA_STENCIL_AVX2 1
#endif

namespace ema::stencil {
namespace {

template <class T>
void row_portable(const coefficients<T>& c, const T* up, const T* mid, const T* down, T* out, std::size_t j0, std::size_t j1) {
  for (std::size_t j = j0; j < j1; ++j) out[j] = cell_update(c, mid[j], mid[j - 1], mid[j + 1], up[j], down[j]);
}

#ifdef EMA_STENCIL_AVX2
// The scalar head and tail round as the vector body does: fmaf is exact fused arithmetic on every path.
template <class T>
bool aligned32(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 31) == 0;
}

__attribute__((target("avx2,fma"))) void row_avx2(const coefficients<float>& c, const float* up, const float* mid, const float* down, float* out,
                                                  std::size_t j0, std::size_t j1, bool stream) {
  std::size_t j = j0;
  if (stream)
    for (; j < j1 && !aligned32(out + j); ++j) out[j] = cell_update(c, mid[j], mid[j - 1], mid[j + 1], up[j], down[j]);
  const __m256 c0 = _mm256_set1_ps(c.c0), cw = _mm256_set1_ps(c.w), ce = _mm256_set1_ps(c.e), cn = _mm256_set1_ps(c.n), cs = _mm256_set1_ps(c.s);
  for (; j + 8 <= j1; j += 8) {
    __m256 r = _mm256_mul_ps(c0, _mm256_loadu_ps(mid + j));
    r = _mm256_fmadd_ps(cw, _mm256_loadu_ps(mid + j - 1), r);
    r = _mm256_fmadd_ps(ce, _mm256_loadu_ps(mid + j + 1), r);
    r = _mm256_fmadd_ps(cn, _mm256_loadu_ps(up + j), r);
    r = _mm256_fmadd_ps(cs, _mm256_loadu_ps(down + j), r);
    if (stream)
      _mm256_stream_ps(out + j, r);
    else
      _mm256_storeu_ps(out + j, r);
  }
  for (; j < j1; ++j) out[j] = cell_update(c, mid[j], mid[j - 1], mid[j + 1], up[j], down[j]);
}

__attribute__((target("avx2,fma"))) void row_avx2(const coefficients<double>& c, const double* up, const double* mid, const double* down, double* out,
                                                  std::size_t j0, std::size_t j1, bool stream) {
  std::size_t j = j0;
  if (stream)
    for (; j < j1 && !aligned32(out + j); ++j) out[j] = cell_update(c, mid[j], mid[j - 1], mid[j + 1], up[j], down[j]);
  const __m256d c0 = _mm256_set1_pd(c.c0), cw = _mm256_set1_pd(c.w), ce = _mm256_set1_pd(c.e), cn = _mm256_set1_pd(c.n), cs = _mm256_set1_pd(c.s);
  for (; j + 4 <= j1; j += 4) {
    __m256d r = _mm256_mul_pd(c0, _mm256_loadu_pd(mid + j));
    r = _mm256_fmadd_pd(cw, _mm256_loadu_pd(mid + j - 1), r);
    r = _mm256_fmadd_pd(ce, _mm256_loadu_pd(mid + j + 1), r);
    r = _mm256_fmadd_pd(cn, _mm256_loadu_pd(up + j), r);
    r = _mm256_fmadd_pd(cs, _mm256_loadu_pd(down + j), r);
    if (stream)
      _mm256_stream_pd(out + j, r);
    else
      _mm256_storeu_pd(out + j, r);
  }
  for (; j < j1; ++j) out[j] = cell_update(c, mid[j], mid[j - 1], mid[j + 1], up[j], down[j]);
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}
#endif

template <class T>
void dispatch(const coefficients<T>& c, const T* up, const T* mid, const T* down, T* out, std::size_t j0, std::size_t j1, bool stream) {
  if (j0 >= j1) return;
#ifdef EMA_STENCIL_AVX2
  if (has_avx2()) return row_avx2(c, up, mid, down, out, j0, j1, stream);
#endif
  row_portable(c, up, mid, down, out, j0, j1);
}

}  // namespace

void step_row(const coefficients<float>& c, const float* up, const float* mid, const float* down, float* out, std::size_t j0, std::size_t j1,
              bool stream) {
  dispatch(c, up, mid, down, out, j0, j1, stream);
}

void step_row(const coefficients<double>& c, const double* up, const double* mid, const double* down, double* out, std::size_t j0, std::size_t j1,
              bool stream) {
  dispatch(c, up, mid, down, out, j0, j1, stream);
}

void stream_fence() {
#ifdef EMA_STENCIL_AVX2
  _mm_sfence();
#endif
}

std::string_view row_kernel_name() {
#ifdef EMA_STENCIL_AVX2
  if (has_avx2()) return "avx2+fma";
#endif
  return "portable";
}

}  // namespace ema::stencil
