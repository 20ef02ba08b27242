// cuBLAS and cuSOLVER for gauss: one handle of each per device, bound to the device's stream,
// created on first use (by the warm-up run, so no timed run pays for it) and kept for the
// process, like the CUDA context; checked calls that throw with the call's text and status; and
// the float/double entry points behind one name.
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

// Overloads for float and double.
inline cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d,
                           int m, int n, const float* a, float* A, int lda, float* B, int ldb) {
  return cublasStrsm(h, s, u, t, d, m, n, a, A, lda, B, ldb);
}
inline cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d,
                           int m, int n, const double* a, double* A, int lda, double* B, int ldb) {
  return cublasDtrsm(h, s, u, t, d, m, n, a, A, lda, B, ldb);
}
inline cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const float* alpha, const float* A, int lda, const float* B,
                           int ldb, const float* beta, float* C, int ldc) {
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const double* alpha, const double* A, int lda,
                           const double* B, int ldb, const double* beta, double* C, int ldc) {
  return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
inline cublasStatus_t trsv(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int n, const float* A,
                           int lda, float* x) {
  return cublasStrsv(h, u, t, d, n, A, lda, x, 1);
}
inline cublasStatus_t trsv(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int n,
                           const double* A, int lda, double* x) {
  return cublasDtrsv(h, u, t, d, n, A, lda, x, 1);
}
inline cublasStatus_t copy(cublasHandle_t h, int n, const float* x, int incx, float* y) { return cublasScopy(h, n, x, incx, y, 1); }
inline cublasStatus_t copy(cublasHandle_t h, int n, const double* x, int incx, double* y) {
  return cublasDcopy(h, n, x, incx, y, 1);
}
inline cusolverStatus_t getrf_buffer_size(cusolverDnHandle_t h, int n, float* A, int lda, int* work) {
  return cusolverDnSgetrf_bufferSize(h, n, n, A, lda, work);
}
inline cusolverStatus_t getrf_buffer_size(cusolverDnHandle_t h, int n, double* A, int lda, int* work) {
  return cusolverDnDgetrf_bufferSize(h, n, n, A, lda, work);
}
inline cusolverStatus_t getrf(cusolverDnHandle_t h, int n, float* A, int lda, float* work, int* ipiv, int* info) {
  return cusolverDnSgetrf(h, n, n, A, lda, work, ipiv, info);
}
inline cusolverStatus_t getrf(cusolverDnHandle_t h, int n, double* A, int lda, double* work, int* ipiv, int* info) {
  return cusolverDnDgetrf(h, n, n, A, lda, work, ipiv, info);
}
inline cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, const float* A, int lda, const int* ipiv, float* B,
                              int ldb, int* info) {
  return cusolverDnSgetrs(h, t, n, 1, A, lda, ipiv, B, ldb, info);
}
inline cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, const double* A, int lda, const int* ipiv,
                              double* B, int ldb, int* info) {
  return cusolverDnDgetrs(h, t, n, 1, A, lda, ipiv, B, ldb, info);
}

}  // namespace ema::gauss
