// The SMs as a processor axis (issue 32, item 1): a CUDA green context of k SMs made current by
// gpu::restrict_sms, under which search `cuda` scans as before but on k SMs alone (run on the GPU
// machine; exits 77 elsewhere). Its own binary: the green context stays current for the process.
#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "measure/gpu.hpp"

namespace ema {
namespace {

/// The median kernel time of search `cuda` over 2^26 elements, verified each time.
double kernel_time(const variant_desc& v, workload& w, const param_set& params, std::uint64_t n) {
  std::vector<double> t;
  for (int r = 0; r < 7; ++r) {
    run_context ctx(n, params, 1);
    ctx.begin_repetition();
    EXPECT_TRUE(v.run(w, ctx).verified);
    t.push_back(ctx.phases().at("kernel"));
  }
  std::nth_element(t.begin(), t.begin() + 3, t.end());
  return t[3];
}

TEST(SmsGpu, AGreenContextOfFewSmsScansSlowerAndStillRight) {
  const auto part = gpu::sm_partitions(0);
  ASSERT_TRUE(part.unavailable.empty()) << "green contexts: " << part.unavailable;
  ASSERT_GT(part.sm_count, 0);
  // The smallest count the device splits off: its minimum partition, on its granularity.
  const int k = (std::max(part.min_partition, part.alignment) + part.alignment - 1) / part.alignment * part.alignment;
  ASSERT_LT(k, part.sm_count);
  std::printf("device 0: %d SMs, partitions of at least %d in multiples of %d; k = %d\n", part.sm_count, part.min_partition, part.alignment, k);
  const auto& problem = find_problem("search");
  auto params = param_set::resolve("search", problem.params, {});
  const std::uint64_t n = 1 << 26;
  auto w = problem.prepare({n, &params, 1, host_memory_kind::pinned});
  const auto& v = find_variant("search", "cuda");
  const double all = kernel_time(v, *w, params, n);
  EXPECT_EQ(gpu::restrict_sms(0, k), k);
  const double few = kernel_time(v, *w, params, n);
  std::printf("search cuda, n = 2^26: kernel %.3f ms on all %d SMs, %.3f ms on %d\n", all * 1e3, part.sm_count, few * 1e3, k);
  // A read-bound scan: its bandwidth grows with the SMs until the memory saturates (the issue's
  // H100: 174 GB/s on 8 SMs, 2287 on 132), so k of them take several times longer.
  EXPECT_GT(few, 3 * all);
  // A count the device cannot split off is refused, naming why.
  EXPECT_THROW(gpu::restrict_sms(0, part.sm_count + part.alignment), std::runtime_error);
}

}  // namespace
}  // namespace ema
