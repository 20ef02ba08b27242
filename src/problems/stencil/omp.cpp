// stencil / omp — one step per sweep, rows shared among OpenMP threads (ours; the parallel form of
// section II of Pires, 002_345fe0ce529d39b6.txt: every cell of a step is independent of the others). The
// rows are vectorised (host_step.cpp). Bound by memory bandwidth: 2 sizeof(T) bytes per cell update,
// plus the line fill of each cached store; `launch.stream=1` writes with non-temporal stores instead
// (measured slower on the GPU machine's host: docs/perf-notes.md).
#include <algorithm>
#include <array>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/stencil/host_step.hpp"

namespace ema::stencil {
namespace {

struct omp_launch {
  int stream = 0;
  static constexpr launch_field fields[] = {
      {"stream", "1: write each step with non-temporal stores (ema: 0; on the H100 machine's host they were slower)", 0, 1}};
  std::array<int*, 1> members() { return {&stream}; }
};

template <class T>
struct rows_in_parallel {
  static output run(const input& in, run_context& ctx) {
    const std::size_t n = in.n;
    const auto c = in.s.weights<T>();
    const bool stream = ctx.launch(omp_launch{}).stream != 0;
    host_array<T> a(in.cells(), host_memory_kind::pageable), b(in.cells(), host_memory_kind::pageable);
    first_touch(in.grid<T>(), a.data(), b.data(), n);
    const auto rows = static_cast<std::int64_t>(n);
    int threads = 1;
    {
      host_phase kernel(ctx, "kernel");
#pragma omp parallel
      {
#pragma omp single nowait
        threads = omp_get_num_threads();
        T* src = a.data();
        T* dst = b.data();
        for (std::uint64_t t = 0; t < in.s.steps; ++t) {
#pragma omp for schedule(static) nowait
          for (std::int64_t i = 0; i < rows; ++i)
            step_rows(in.s.boundary, c, src, dst, n, static_cast<std::size_t>(i), static_cast<std::size_t>(i) + 1, stream);
          if (stream) stream_fence();
#pragma omp barrier
          std::swap(src, dst);
        }
      }
    }
    if (in.s.steps % 2) std::swap(a, b);
    ctx.note("threads", threads);
    ctx.processors(threads);
    ctx.note("row_kernel", row_kernel_name());
    return owned(std::move(a));
  }
};

output run(const input& in, run_context& ctx) { return run_typed<rows_in_parallel>(in, ctx); }

}  // namespace
}  // namespace ema::stencil

EMA_VARIANT(stencil_omp, ema::stencil::kit::variant<&ema::stencil::run>({
                             .name = "omp",
                             .backend = ema::backend::omp,
                             .role = ema::variant_role::ours,
                             .description = "one step per sweep, rows shared among threads, vectorised",
                             .provenance = "ours (parallel form of section II of 002_345fe0ce529d39b6.txt)",
                             .launch = ema::stencil::omp_launch::fields,
                         }));
