#include <fmt/format.h>
#include <map>
#include <stdexcept>

#include "core/errors.hpp"
#include "measure/cuda/check.cuh"
#include "measure/cuda/resources.cuh"
#include "problems/gauss/libraries.cuh"

namespace ema::gauss {

void check_cublas(cublasStatus_t status, const char* expr, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw out_of_memory(fmt::format("{} at {}:{}: cuBLAS could not allocate", expr, file, line));
  throw std::runtime_error(fmt::format("{} failed at {}:{}: {}", expr, file, line, cublasGetStatusString(status)));
}

void check_cusolver(cusolverStatus_t status, const char* expr, const char* file, int line) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  if (status == CUSOLVER_STATUS_ALLOC_FAILED) throw out_of_memory(fmt::format("{} at {}:{}: cuSOLVER could not allocate", expr, file, line));
  throw std::runtime_error(fmt::format("{} failed at {}:{}: cuSOLVER status {}", expr, file, line, static_cast<int>(status)));
}

cublasHandle_t cublas_handle() {
  static std::map<int, cublasHandle_t> handles;
  int device = 0;
  EMA_CUDA_CHECK(cudaGetDevice(&device));
  auto& h = handles[device];
  if (!h) {
    EMA_CUBLAS_CHECK(cublasCreate(&h));
    EMA_CUBLAS_CHECK(cublasSetStream(h, cuda::stream(device)));
  }
  return h;
}

cusolverDnHandle_t cusolver_handle() {
  static std::map<int, cusolverDnHandle_t> handles;
  int device = 0;
  EMA_CUDA_CHECK(cudaGetDevice(&device));
  auto& h = handles[device];
  if (!h) {
    EMA_CUSOLVER_CHECK(cusolverDnCreate(&h));
    EMA_CUSOLVER_CHECK(cusolverDnSetStream(h, cuda::stream(device)));
  }
  return h;
}

}  // namespace ema::gauss
