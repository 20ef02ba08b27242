// gauss / cuda — ours: blocked right-looking LU with partial pivoting on the device (the kernels
// and cuBLAS calls are in blocked_lu.cu, the design in blocked_lu.cuh), in the source's flow of
// section 3.1: one copy of [A|b] in, stage 1 (the factorisation, b transformed with the rows),
// stage 2 (a triangular solve), the solution back.
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>

#include "core/registry.hpp"
#include "problems/gauss/blocked_lu.cuh"
#include "problems/gauss/device_flow.cuh"

namespace ema::gauss {
namespace {

template <class T>
struct blocked_solver {
  static output run(const input& in, run_context& ctx) {
    cuda::session gpu(ctx);
    const device_system<T> sys(gpu, in);
    const int n = static_cast<int>(in.n);
    const int blocks = blocked::max_panel_blocks();
    const auto how = ctx.launch(blocked::choose_launch(n));
    auto* scratch = gpu.alloc<unsigned char>(blocked::workspace<T>::bytes(in.n, blocks));
    T* x = gpu.alloc<T>(in.n);
    blocked::workspace<T> ws;
    ws.carve(scratch, in.n, blocks);
    // The unknowns and the info word come back together in one pinned buffer.
    T* back = gpu.results<T>(in.n + 2);
    auto* info_back = reinterpret_cast<int*>(back + in.n);
    sys.upload(gpu, in);
    static const bool profiling = std::getenv("EMA_GAUSS_PROFILE") != nullptr;
    {
      auto part = gpu.kernel_part("stage1");
      const auto strips = blocked::factor(sys.data(), n, how, ws, gpu.stream(), profiling ? &gpu : nullptr);
      ctx.note("strips_one_block", strips.one_block);
      ctx.note("strips_cluster", strips.cluster);
      ctx.note("strips_grid", strips.grid);
      ctx.note("graph_replayed", strips.replayed ? 1 : 0);  // 0: issued, or captured by this call
    }
    {
      auto part = gpu.kernel_part("stage2");
      blocked::substitute(sys.data(), n, x, gpu.stream());
    }
    {
      auto d2h = gpu.phase("d2h");
      gpu.download(back, x, in.n);
      gpu.download(info_back, ws.info, 1);
    }
    gpu.finish();
    if (profiling)
      for (const char* kind : blocked::profile_kinds) {
        const auto laps = gpu.lap_times(kind);
        ctx.add_phase(std::string("profile_") + kind, std::accumulate(laps.begin(), laps.end(), 0.0));
      }
    return from_lu(*info_back, back, in.n);
  }
};

output solve(const input& in, run_context& ctx) { return solve_typed<blocked_solver>(in, ctx); }

}  // namespace
}  // namespace ema::gauss

EMA_VARIANT(gauss_cuda,
            ema::gauss::kit::variant<&ema::gauss::solve>({
                .name = "cuda",
                .algorithm = "lu",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::ours,
                .description = "blocked LU with partial pivoting: a panel kernel per strip (a cluster or a cooperative grid), cuBLAS TRSM and GEMM",
                .provenance = "ours",
                .launch = ema::gauss::blocked::launch::fields,
            }));
