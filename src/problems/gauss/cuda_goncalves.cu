// gauss / cuda-goncalves — the literature baseline of Zudio et al., 003_7e2665a3d38c50fb.txt section 4.3 (Table
// 3): [Gonçalves et al. 2015], "a didactic implementation of Gaussian elimination for CUDA and
// OpenACC", where "only stage 1 exploits the GPU's parallelism". The source does not reproduce
// that code; this is our reconstruction of it as described: Algorithm 1 with its loop over rows
// i made parallel, one thread per row below the pivot, each running the loop over j itself (what
// a didactic port of Algorithm 1, or an OpenACC `parallel loop` over i, gives), one launch per
// pivot on the main diagonal; then the whole augmented matrix comes back to the host, where
// Algorithm 2 runs sequentially. Neighbouring threads work on different rows, so the warp's
// accesses are not coalesced: the cost of the didactic layout, kept on purpose.
#include <array>
#include <cmath>
#include <vector>

#include "core/registry.hpp"
#include "problems/gauss/device_flow.cuh"

namespace ema::gauss {
namespace {

/// A thread per row below the pivot, in blocks of `threads`.
struct rows_launch {
  int threads = 256;
  static constexpr launch_field fields[] = {{"threads", "threads per block, a row each (ema: 256)", 32, 1024, 32}};
  std::array<int*, 1> members() { return {&threads}; }
};

template <class T>
__global__ void k_eliminate_rows(T* m, int n, int k) {
  const long long n1 = n + 1;
  const long long i = k + 1 + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T coef = m[i * n1 + k] / m[k * n1 + k];
  for (int j = k; j <= n; ++j) m[i * n1 + j] -= coef * m[k * n1 + j];
}

template <class T>
struct goncalves {
  static output run(const input& in, run_context& ctx) {
    cuda::session gpu(ctx);
    const device_system<T> sys(gpu, in);
    const int n = static_cast<int>(in.n);
    const std::size_t n1 = in.n + 1;
    ctx.note("launches", static_cast<std::int64_t>(in.n - 1));
    const int threads = ctx.launch(rows_launch{}).threads;
    host_array<T> back(in.n * n1, host_memory_kind::pinned);
    sys.upload(gpu, in);
    {
      auto part = gpu.kernel_part("stage1");
      for (int k = 0; k + 1 < n; ++k) {
        k_eliminate_rows<<<grid_for(n - k - 1, threads), threads, 0, gpu.stream()>>>(sys.data(), n, k);
        EMA_CUDA_CHECK_LAUNCH();
      }
    }
    {
      auto d2h = gpu.phase("d2h");
      gpu.download(back.data(), sys.data(), sys.count());
    }
    gpu.finish();
    output out;
    const T* M = back.data();
    for (std::size_t k = 0; k < in.n; ++k)
      if (M[k * n1 + k] == T(0)) {  // the pivot every row below divided by
        out.status = output::state::singular;
        out.step = static_cast<std::int64_t>(k);
        return out;
      }
    out.x = back_substitution(M, in.n, ctx);  // Algorithm 2 on the host
    return out;
  }
};

output solve(const input& in, run_context& ctx) { return solve_typed<goncalves>(in, ctx); }

}  // namespace
}  // namespace ema::gauss

EMA_VARIANT(gauss_cuda_goncalves, ema::gauss::kit::variant<&ema::gauss::solve>({
                                      .name = "cuda-goncalves",
                                      .algorithm = "elimination",
                                      .backend = ema::backend::cuda,
                                      .role = ema::variant_role::source,
                                      .description = "literature baseline: stage 1 on the GPU (a thread per row), stage 2 on the host",
                                      .provenance = "[Gonçalves et al. 2015] as compared in 003_7e2665a3d38c50fb.txt section 4.3 (reconstructed)",
                                      .launch = ema::gauss::rows_launch::fields,
                                      .not_applicable = &ema::gauss::needs_dominance,
                                  }));
