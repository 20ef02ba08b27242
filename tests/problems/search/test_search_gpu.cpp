// search: phase times and device memory of the CUDA variants (run on the GPU machine; exits 77 elsewhere).
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "measure/gpu.hpp"

namespace ema {
namespace {

TEST(SearchGpu, PhasesAndDeviceMemoryAreMeasured) {
  const auto& problem = find_problem("search");
  auto params = param_set::resolve("search", problem.params, {});
  const std::uint64_t n = 1 << 20;
  auto w = problem.prepare({n, &params, 1, host_memory_kind::pinned});
  for (const auto* v : variants_of("search")) {
    if (!uses_gpu(v->backend)) continue;
    run_context ctx(n, params, v->backend == backend::multi_gpu ? gpu::device_count() : 1);
    ctx.begin_repetition();
    ASSERT_TRUE(v->run(*w, ctx).verified) << v->name;
    for (const char* phase : {"total", "alloc", "h2d", "kernel", "free"})
      EXPECT_GT(ctx.phases().count(phase) ? ctx.phases().at(phase) : 0.0, 0.0) << v->name << " " << phase;
    EXPECT_GE(ctx.phases().at("total"), ctx.phases().at("kernel")) << v->name;
    EXPECT_GE(ctx.device_memory().peak(), 4 * n) << v->name;
    EXPECT_EQ(ctx.device_memory().current(), 0u) << v->name << " leaked device memory";
  }
}

}  // namespace
}  // namespace ema
