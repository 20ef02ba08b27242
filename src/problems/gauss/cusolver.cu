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
    cuda::session gpu(ctx);
    const device_system<T> sys(gpu, in);
    const int n = static_cast<int>(in.n), n1 = n + 1;
    cusolverDnHandle_t solver = cusolver_handle();
    cublasHandle_t blas = cublas_handle();
    int lwork = 0;
    EMA_CUSOLVER_CHECK(getrf_buffer_size(solver, n, sys.data(), n1, &lwork));
    T* work = gpu.alloc<T>(static_cast<std::size_t>(std::max(lwork, 1)));
    T* x = gpu.alloc<T>(in.n);
    int* ipiv = gpu.alloc<int>(in.n + 2);
    int* info = ipiv + in.n;             // getrf's, then getrs's
    T* back = gpu.results<T>(in.n + 2);  // the unknowns, then the two info words
    auto* info_back = reinterpret_cast<int*>(back + in.n);
    sys.upload(gpu, in);
    {
      auto part = gpu.kernel_part("stage1");
      EMA_CUSOLVER_CHECK(getrf(solver, n, sys.data(), n1, work, ipiv, info));
    }
    {
      auto part = gpu.kernel_part("stage2");
      EMA_CUBLAS_CHECK(copy(blas, n, sys.data() + n, n1, x));
      EMA_CUSOLVER_CHECK(getrs(solver, CUBLAS_OP_T, n, sys.data(), n1, ipiv, x, n, info + 1));
    }
    {
      auto d2h = gpu.phase("d2h");
      gpu.download(back, x, in.n);
      gpu.download(info_back, info, 2);
    }
    gpu.finish();
    if (info_back[0] < 0 || info_back[1] != 0)
      throw std::runtime_error("cuSOLVER reported an invalid argument (getrf info " + std::to_string(info_back[0]) + ", getrs info " +
                               std::to_string(info_back[1]) + ")");
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
