// Every variant of `search` against `seq` on the same seeded inputs: sizes around powers of two and
// the warp and block widths, every hit mode, the key once and several times. Shared by the CPU and
// GPU test binaries, which differ only in the variants they select.
#pragma once

#include <functional>
#include <gtest/gtest.h>

#include "core/backend.hpp"
#include "core/registry.hpp"
#include "measure/gpu.hpp"

namespace ema::test {

inline void search_variants_agree_with_seq(const std::function<bool(const variant_desc&)>& select) {
  const auto& problem = find_problem("search");
  const auto& seq = find_variant("search", "seq");
  const std::uint64_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, (1u << 20) + 7};
  int checked = 0;
  for (const auto* v : variants_of("search")) {
    if (!select(*v)) continue;
    const auto memory = uses_gpu(v->backend) ? host_memory_kind::pinned : host_memory_kind::pageable;
    for (auto n : sizes)
      for (const char* hit : {"none", "first", "middle", "last", "random"})
        for (const char* copies : {"1", "3"}) {
          auto params = param_set::resolve("search", problem.params, {std::string("hit=") + hit, std::string("copies=") + copies});
          for (std::uint64_t seed : {1ull, 977ull}) {
            auto w = problem.prepare({n, &params, seed, memory});
            run_context ctx(n, params, v->backend == backend::multi_gpu ? gpu::device_count() : 1);
            auto expected = seq.run(*w, ctx);
            ASSERT_TRUE(expected.verified) << expected.reason;
            auto got = v->run(*w, ctx);
            EXPECT_TRUE(got.verified) << v->name << " n=" << n << " hit=" << hit << " copies=" << copies << ": " << got.reason;
            EXPECT_EQ(got.result_json, expected.result_json) << v->name << " n=" << n << " hit=" << hit;
            ++checked;
          }
        }
  }
  EXPECT_GT(checked, 0) << "no variant was selected";
}

}  // namespace ema::test
