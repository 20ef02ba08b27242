// cuBLAS and cuSOLVER for gauss, loaded at run time (dlopen) on first use, like NVML: linked in,
// they would be loaded by every ema process (every measured point's worker) before main, adding
// about 0.1 s and 250 MB of resident mappings to each point of every problem. One handle of each
// per device, bound to the device's stream, created on first use (by the warm-up run, so no timed
// run pays for it) and kept for the process, like the CUDA context; checked calls that throw with
// the call's text and status; and the float/double entry points behind one name.
#pragma once

#include <cublas_v2.h>
#include <cusolverDn.h>

namespace ema::gauss {

#define EMA_CUBLAS_CHECK(expr) ::ema::gauss::check_cublas((expr), #expr, __FILE__, __LINE__)
#define EMA_CUSOLVER_CHECK(expr) ::ema::gauss::check_cusolver((expr), #expr, __FILE__, __LINE__)

void check_cublas(cublasStatus_t status, const char* expr, const char* file, int line);
void check_cusolver(cusolverStatus_t status, const char* expr, const char* file, int line);

/// The handles of the current device, set to its ema stream.
cublasHandle_t cublas_handle();
cusolverDnHandle_t cusolver_handle();

/// The entry points this project calls, resolved from libcublas.so.N and libcusolver.so.N (N the
/// toolkit's major versions). api() throws, naming the library and dlerror(), when one is missing.
struct library_api {
#define EMA_API_ENTRY(f) decltype(&::f) f
  EMA_API_ENTRY(cublasCreate);
  EMA_API_ENTRY(cublasSetStream);
  EMA_API_ENTRY(cublasGetStatusString);
  EMA_API_ENTRY(cublasStrsm);
  EMA_API_ENTRY(cublasDtrsm);
  EMA_API_ENTRY(cublasSgemm);
  EMA_API_ENTRY(cublasDgemm);
  EMA_API_ENTRY(cublasStrsv);
  EMA_API_ENTRY(cublasDtrsv);
  EMA_API_ENTRY(cublasScopy);
  EMA_API_ENTRY(cublasDcopy);
  EMA_API_ENTRY(cusolverDnCreate);
  EMA_API_ENTRY(cusolverDnSetStream);
  EMA_API_ENTRY(cusolverDnSgetrf_bufferSize);
  EMA_API_ENTRY(cusolverDnDgetrf_bufferSize);
  EMA_API_ENTRY(cusolverDnSgetrf);
  EMA_API_ENTRY(cusolverDnDgetrf);
  EMA_API_ENTRY(cusolverDnSgetrs);
  EMA_API_ENTRY(cusolverDnDgetrs);
#undef EMA_API_ENTRY
};
const library_api& api();

// Overloads for float and double.
inline cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m, int n,
                           const float* a, float* A, int lda, float* B, int ldb) {
  return api().cublasStrsm(h, s, u, t, d, m, n, a, A, lda, B, ldb);
}
inline cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int m, int n,
                           const double* a, double* A, int lda, double* B, int ldb) {
  return api().cublasDtrsm(h, s, u, t, d, m, n, a, A, lda, B, ldb);
}
inline cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const float* alpha, const float* A, int lda, const float* B, int ldb,
                           const float* beta, float* C, int ldc) {
  return api().cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const double* alpha, const double* A, int lda, const double* B, int ldb,
                           const double* beta, double* C, int ldc) {
  return api().cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline cublasStatus_t trsv(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int n, const float* A, int lda, float* x) {
  return api().cublasStrsv(h, u, t, d, n, A, lda, x, 1);
}
inline cublasStatus_t trsv(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int n, const double* A, int lda,
                           double* x) {
  return api().cublasDtrsv(h, u, t, d, n, A, lda, x, 1);
}
inline cublasStatus_t copy(cublasHandle_t h, int n, const float* x, int incx, float* y) { return api().cublasScopy(h, n, x, incx, y, 1); }
inline cublasStatus_t copy(cublasHandle_t h, int n, const double* x, int incx, double* y) { return api().cublasDcopy(h, n, x, incx, y, 1); }
inline cusolverStatus_t getrf_buffer_size(cusolverDnHandle_t h, int n, float* A, int lda, int* work) {
  return api().cusolverDnSgetrf_bufferSize(h, n, n, A, lda, work);
}
inline cusolverStatus_t getrf_buffer_size(cusolverDnHandle_t h, int n, double* A, int lda, int* work) {
  return api().cusolverDnDgetrf_bufferSize(h, n, n, A, lda, work);
}
inline cusolverStatus_t getrf(cusolverDnHandle_t h, int n, float* A, int lda, float* work, int* ipiv, int* info) {
  return api().cusolverDnSgetrf(h, n, n, A, lda, work, ipiv, info);
}
inline cusolverStatus_t getrf(cusolverDnHandle_t h, int n, double* A, int lda, double* work, int* ipiv, int* info) {
  return api().cusolverDnDgetrf(h, n, n, A, lda, work, ipiv, info);
}
inline cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, const float* A, int lda, const int* ipiv, float* B, int ldb,
                              int* info) {
  return api().cusolverDnSgetrs(h, t, n, 1, A, lda, ipiv, B, ldb, info);
}
inline cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, const double* A, int lda, const int* ipiv, double* B, int ldb,
                              int* info) {
  return api().cusolverDnDgetrs(h, t, n, 1, A, lda, ipiv, B, ldb, info);
}

}  // namespace ema::gauss
