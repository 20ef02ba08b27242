#include <dlfcn.h>
#include <fmt/format.h>
#include <map>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "measure/cuda/check.cuh"
#include "measure/cuda/resources.cuh"
#include "problems/gauss/libraries.cuh"

namespace ema::gauss {

namespace {

#define EMA_STRINGIFY2(x) #x
#define EMA_STRINGIFY(x) EMA_STRINGIFY2(x)

void* open_library(const std::string& name) {
  void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(fmt::format("cannot load {} (the CUDA toolkit's library): {}", name, dlerror()));
  return h;
}

void* symbol(void* library, const char* library_name, const char* name) {
  void* p = dlsym(library, name);
  if (!p) throw std::runtime_error(fmt::format("{} has no {}", library_name, name));
  return p;
}

library_api load() {
  const std::string blas_name = fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR);
  const std::string solver_name = fmt::format("libcusolver.so.{}", CUSOLVER_VER_MAJOR);
  void* blas = open_library(blas_name);
  void* solver = open_library(solver_name);
  library_api a;
  // The cublas_v2.h macros name the _v2 entry points; EMA_STRINGIFY expands them first.
#define EMA_RESOLVE(lib, f) a.f = reinterpret_cast<decltype(a.f)>(symbol(lib, lib##_name.c_str(), EMA_STRINGIFY(f)))
  EMA_RESOLVE(blas, cublasCreate);
  EMA_RESOLVE(blas, cublasSetStream);
  EMA_RESOLVE(blas, cublasGetStatusString);
  EMA_RESOLVE(blas, cublasStrsm);
  EMA_RESOLVE(blas, cublasDtrsm);
  EMA_RESOLVE(blas, cublasSgemm);
  EMA_RESOLVE(blas, cublasDgemm);
  EMA_RESOLVE(blas, cublasStrsv);
  EMA_RESOLVE(blas, cublasDtrsv);
  EMA_RESOLVE(blas, cublasScopy);
  EMA_RESOLVE(blas, cublasDcopy);
  EMA_RESOLVE(solver, cusolverDnCreate);
  EMA_RESOLVE(solver, cusolverDnSetStream);
  EMA_RESOLVE(solver, cusolverDnSgetrf_bufferSize);
  EMA_RESOLVE(solver, cusolverDnDgetrf_bufferSize);
  EMA_RESOLVE(solver, cusolverDnSgetrf);
  EMA_RESOLVE(solver, cusolverDnDgetrf);
  EMA_RESOLVE(solver, cusolverDnSgetrs);
  EMA_RESOLVE(solver, cusolverDnDgetrs);
#undef EMA_RESOLVE
  return a;
}

}  // namespace

const library_api& api() {
  static const library_api loaded = load();  // a failed load throws and is retried by the next call
  return loaded;
}

void check_cublas(cublasStatus_t status, const char* expr, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw out_of_memory(fmt::format("{} at {}:{}: cuBLAS could not allocate", expr, file, line));
  throw std::runtime_error(fmt::format("{} failed at {}:{}: {}", expr, file, line, api().cublasGetStatusString(status)));
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
    EMA_CUBLAS_CHECK(api().cublasCreate(&h));
    EMA_CUBLAS_CHECK(api().cublasSetStream(h, cuda::stream(device)));
  }
  return h;
}

cusolverDnHandle_t cusolver_handle() {
  static std::map<int, cusolverDnHandle_t> handles;
  int device = 0;
  EMA_CUDA_CHECK(cudaGetDevice(&device));
  auto& h = handles[device];
  if (!h) {
    EMA_CUSOLVER_CHECK(api().cusolverDnCreate(&h));
    EMA_CUSOLVER_CHECK(api().cusolverDnSetStream(h, cuda::stream(device)));
  }
  return h;
}

}  // namespace ema::gauss
