// gauss / cusolver — the anchor: what a user would otherwise reach for, cuSOLVER's getrf (LU with
// partial pivoting) and getrs, in the source's flow of section 3.1 (one copy in, stage 1 = getrf,
// stage 2 = getrs, the solution back). The row-major [A|b] read column-major with leading
// dimension n + 1 is A^T: getrf factors it as it lies and getrs solves with the transpose
// (A^T)^T x = b, so nothing is rearranged; b is gathered from its stride by cuBLAS copy.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/registry.hpp"
#include "problems/gauss/device_flow.cuh"
#include "problems/gauss/libraries.cuh"

namespace ema::gauss {
namespace {

template <class T>
struct cusolver_solver {
  static output run(const input& in, run_context& ctx) {
    device_system<T> sys(in, ctx);
    const int n = static_cast<int>(in.n), n1 = n + 1;
    cusolverDnHandle_t solver = cusolver_handle();
    cublasHandle_t blas = cublas_handle();
    int lwork = 0;
    EMA_CUSOLVER_CHECK(getrf_buffer_size(solver, n, sys.data(), n1, &lwork));
    cuda::device_buffer<T> work, x;
    cuda::device_buffer<int> ipiv_info;
    {
      host_phase p(ctx, "alloc");
      work = cuda::device_buffer<T>(static_cast<std::size_t>(std::max(lwork, 1)), ctx.device_memory());
      x = cuda::device_buffer<T>(in.n, ctx.device_memory());
      ipiv_info = cuda::device_buffer<int>(in.n + 2, ctx.device_memory());
    }
    int* ipiv = ipiv_info.data();
    int* info = ipiv + in.n;  // getrf's, then getrs's
    T* back = pinned_result<T>(in.n + 2);
    auto* info_back = reinterpret_cast<int*>(back + in.n);
    cuda::event_timeline tl(sys.stream);
    tl.begin("h2d");
    EMA_CUDA_CHECK(cudaMemcpyAsync(sys.data(), in.augmented<T>(), sys.m.bytes(), cudaMemcpyHostToDevice, sys.stream));
    tl.end();
    tl.begin("stage1");
    EMA_CUSOLVER_CHECK(getrf(solver, n, sys.data(), n1, work.data(), ipiv, info));
    tl.end();
    tl.begin("stage2");
    EMA_CUBLAS_CHECK(copy(blas, n, sys.data() + n, n1, x.data()));
    EMA_CUSOLVER_CHECK(getrs(solver, CUBLAS_OP_T, n, sys.data(), n1, ipiv, x.data(), n, info + 1));
    tl.end();
    tl.begin("d2h");
    EMA_CUDA_CHECK(cudaMemcpyAsync(back, x.data(), x.bytes(), cudaMemcpyDeviceToHost, sys.stream));
    EMA_CUDA_CHECK(cudaMemcpyAsync(info_back, info, 2 * sizeof(int), cudaMemcpyDeviceToHost, sys.stream));
    tl.end();
    publish_with_kernel(tl, ctx);
    {
      host_phase p(ctx, "free");
      work.reset();
      x.reset();
      ipiv_info.reset();
      sys.m.reset();
    }
    if (info_back[0] < 0 || info_back[1] != 0)
      throw std::runtime_error("cuSOLVER reported an invalid argument (getrf info " + std::to_string(info_back[0]) +
                               ", getrs info " + std::to_string(info_back[1]) + ")");
    return from_lu(info_back[0], back, in.n);  // info > 0: U(info, info) is exactly zero
  }
};

output solve(const input& in, run_context& ctx) { return solve_typed<cusolver_solver>(in, ctx); }

}  // namespace
}  // namespace ema::gauss

EMA_VARIANT(gauss_cusolver, ema::gauss::kit::variant<&ema::gauss::solve>({
    .name = "cusolver",
    .algorithm = "lu",
    .backend = ema::backend::cuda,
    .role = ema::variant_role::anchor,
    .description = "cuSOLVER getrf + getrs (LU with partial pivoting), the anchor",
    .provenance = "cuSOLVER getrf/getrs",
}));
