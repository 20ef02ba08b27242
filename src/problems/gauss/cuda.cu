// gauss / cuda — ours: blocked right-looking LU with partial pivoting on the device (the kernels
// and cuBLAS calls are in blocked_lu.cu, the design in blocked_lu.cuh), in the source's flow of
// section 3.1: one copy of [A|b] in, stage 1 (the factorisation, b transformed with the rows),
// stage 2 (a triangular solve), the solution back.
#include <cmath>
#include <cstdlib>

#include "core/registry.hpp"
#include "problems/gauss/blocked_lu.cuh"
#include "problems/gauss/device_flow.cuh"

namespace ema::gauss {
namespace {

template <class T>
struct blocked_solver {
  static output run(const input& in, run_context& ctx) {
    device_system<T> sys(in, ctx);
    const int n = static_cast<int>(in.n);
    const int blocks = blocked::max_panel_blocks();
    cuda::device_buffer<unsigned char> scratch;
    cuda::device_buffer<T> x;
    {
      host_phase p(ctx, "alloc");
      scratch = cuda::device_buffer<unsigned char>(blocked::workspace<T>::bytes(in.n, blocks), ctx.device_memory());
      x = cuda::device_buffer<T>(in.n, ctx.device_memory());
    }
    blocked::workspace<T> ws;
    ws.carve(scratch.data(), in.n, blocks);
    // The unknowns and the info word come back together in one pinned buffer.
    T* back = pinned_result<T>(in.n + 2);
    auto* info_back = reinterpret_cast<int*>(back + in.n);
    cuda::event_timeline tl(sys.stream);
    tl.begin("h2d");
    EMA_CUDA_CHECK(cudaMemcpyAsync(sys.data(), in.augmented<T>(), sys.m.bytes(), cudaMemcpyHostToDevice, sys.stream));
    tl.end();
    static const bool profiling = std::getenv("EMA_GAUSS_PROFILE") != nullptr;
    blocked::profile prof;
    tl.begin("stage1");
    blocked::factor(sys.data(), n, ws, sys.stream, profiling ? &prof : nullptr);
    tl.end();
    tl.begin("stage2");
    blocked::substitute(sys.data(), n, x.data(), sys.stream);
    tl.end();
    tl.begin("d2h");
    EMA_CUDA_CHECK(cudaMemcpyAsync(back, x.data(), x.bytes(), cudaMemcpyDeviceToHost, sys.stream));
    EMA_CUDA_CHECK(cudaMemcpyAsync(info_back, ws.info, sizeof(int), cudaMemcpyDeviceToHost, sys.stream));
    tl.end();
    publish_with_kernel(tl, ctx);
    if (profiling) {
      ctx.add_phase("profile_strip", prof.strip);
      ctx.add_phase("profile_swap", prof.swap);
      ctx.add_phase("profile_panel_update", prof.panel_update);
      ctx.add_phase("profile_trailing_update", prof.trailing_update);
    }
    {
      host_phase p(ctx, "free");
      x.reset();
      scratch.reset();
      sys.m.reset();
    }
    return from_lu(*info_back, back, in.n);
  }
};

output solve(const input& in, run_context& ctx) { return solve_typed<blocked_solver>(in, ctx); }

}  // namespace
}  // namespace ema::gauss

EMA_VARIANT(gauss_cuda, ema::gauss::kit::variant<&ema::gauss::solve>({
    .name = "cuda",
    .algorithm = "lu",
    .backend = ema::backend::cuda,
    .role = ema::variant_role::ours,
    .description = "blocked LU with partial pivoting: cooperative panel kernel, cuBLAS TRSM and GEMM",
    .provenance = "ours",
}));
