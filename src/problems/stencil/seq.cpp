// stencil / seq — the plain two-buffer loop, one thread (Pires, 002_345fe0ce529d39b6.txt, section I: every
// cell of step t + 1 from its 4-connected neighbours at step t): T sweeps over the grid, each
// reading one buffer and writing the other, rows in order. Θ(n² T).
#include <cstring>

#include "core/registry.hpp"
#include "problems/stencil/host_step.hpp"

namespace ema::stencil {
namespace {

template <class T>
struct two_buffers {
  static output run(const input& in, run_context& ctx) {
    const std::size_t n = in.n;
    const auto c = in.s.weights<T>();
    host_array<T> a(in.cells(), host_memory_kind::pageable), b(in.cells(), host_memory_kind::pageable);
    std::memcpy(a.data(), in.grid<T>(), a.bytes());
    ctx.note("row_kernel", row_kernel_name());
    {
      host_phase kernel(ctx, "kernel");
      for (std::uint64_t t = 0; t < in.s.steps; ++t) {
        step_rows(in.s.boundary, c, a.data(), b.data(), n, 0, n, false);
        std::swap(a, b);
      }
    }
    return owned(std::move(a));
  }
};

output run(const input& in, run_context& ctx) { return run_typed<two_buffers>(in, ctx); }

}  // namespace
}  // namespace ema::stencil

EMA_VARIANT(stencil_seq, ema::stencil::kit::variant<&ema::stencil::run>({
                             .name = "seq",
                             .backend = ema::backend::seq,
                             .role = ema::variant_role::source,
                             .description = "the plain two-buffer loop, one step per sweep, one thread",
                             .provenance = "section I and Figure 1 of 002_345fe0ce529d39b6.txt",
                         }));
