// Checked CUDA calls: every runtime call and every launch is checked and throws with the file,
// the line and the call's text; an allocation failure throws ema::out_of_memory so the point is
// recorded as `oom`. A no-throw twin serves destructors.
#pragma once

#include <cuda_runtime.h>

#define EMA_CUDA_CHECK(expr) ::ema::cuda::check((expr), #expr, __FILE__, __LINE__)
#define EMA_CUDA_CHECK_LAUNCH() ::ema::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
#define EMA_CUDA_CHECK_NOTHROW(expr) ::ema::cuda::check_nothrow((expr), #expr, __FILE__, __LINE__)

namespace ema::cuda {

[[noreturn]] void fail(cudaError_t error, const char* expr, const char* file, int line);
void report(cudaError_t error, const char* expr, const char* file, int line) noexcept;

inline void check(cudaError_t error, const char* expr, const char* file, int line) {
  if (error != cudaSuccess) fail(error, expr, file, line);
}

inline void check_nothrow(cudaError_t error, const char* expr, const char* file, int line) noexcept {
  if (error != cudaSuccess) report(error, expr, file, line);
}

}  // namespace ema::cuda
