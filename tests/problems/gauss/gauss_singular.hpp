// A singular system must come back as "singular", verified, from every variant (the conformance
// tests cover the solvable cases). Shared by the CPU and GPU test binaries, which differ only in
// the variants they select.
#pragma once

#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/registry.hpp"
#include "measure/gpu.hpp"
#include "problems/gauss/gauss.hpp"

namespace ema::test {

inline param_set gauss_params(const std::vector<std::string>& a) { return param_set::resolve("gauss", find_problem("gauss").params, a); }

inline host_memory_kind memory_for(const variant_desc& v) { return uses_gpu(v.backend) ? host_memory_kind::pinned : host_memory_kind::pageable; }

/// Runs `v` once on a prepared workload.
inline outcome run_gauss(const variant_desc& v, workload& w, std::uint64_t n, const param_set& params) {
  run_context ctx(n, params, 1);
  return v.run(w, ctx);
}

/// A diagonally dominant system whose row `zero` is all zeros (b too): singular for every variant.
inline std::unique_ptr<workload> singular_workload(std::uint64_t n, std::size_t zero, const std::string& type, host_memory_kind memory) {
  auto params = gauss_params({"type=" + type});
  auto w = std::make_unique<gauss::kit::typed_workload>();
  w->in = gauss::traits::generate({n, &params, 3, memory});
  for (std::size_t j = 0; j <= n; ++j) {
    if (w->in.f64)
      w->in.m64[zero * (n + 1) + j] = 0;
    else
      w->in.m32[zero * (n + 1) + j] = 0;
  }
  w->in.dominant = false;
  w->expected = gauss::traits::reference(w->in);
  return w;
}

inline void gauss_variants_report_singular(const std::function<bool(const variant_desc&)>& select) {
  int checked = 0;
  for (const auto* v : variants_of("gauss")) {
    if (!select(*v)) continue;
    for (const char* type : {"f32", "f64"})
      for (auto [n, zero] : {std::pair<std::uint64_t, std::size_t>{1, 0}, {17, 5}, {64, 63}, {100, 0}}) {
        auto w = singular_workload(n, zero, type, memory_for(*v));
        auto params = gauss_params({std::string("type=") + type});
        auto got = run_gauss(*v, *w, n, params);
        EXPECT_TRUE(got.verified) << v->name << " n=" << n << " zero row " << zero << ": " << got.reason;
        EXPECT_NE(got.result_json.find("\"singular\""), std::string::npos) << v->name << " n=" << n << ": " << got.result_json;
        ++checked;
      }
  }
  EXPECT_GT(checked, 0) << "no variant was selected";
}

}  // namespace ema::test
