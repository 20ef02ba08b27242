// stencil: what the CPU and GPU tests share: parameters, a prepared point, and a variant's run
// compared cell by cell with seq's through dump= files (every variant must give seq's grid bit for
// bit: one cell formula, Jacobi steps).
#pragma once

#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "inputs/matrix_market.hpp"
#include "measure/gpu.hpp"
#include "problems/conformance.hpp"
#include "support/temp_dir.hpp"

namespace ema::test {

/// The parameters of `assignments`; `launch.<field>=V` ones are applied as overrides (as the
/// plan does).
inline param_set stencil_params(const std::vector<std::string>& assignments) {
  std::vector<std::string> declared, launch;
  for (const auto& a : assignments) (a.rfind("launch.", 0) == 0 ? launch : declared).push_back(a);
  auto p = param_set::resolve("stencil", find_problem("stencil").params, declared);
  for (const auto& a : launch) p = p.with(a.substr(0, a.find('=')), a.substr(a.find('=') + 1));
  return p;
}

/// Runs `variant` on one prepared point; returns the verifier's outcome and, through dump=, the grid.
inline outcome run_stencil(const char* variant, std::uint64_t n, const std::vector<std::string>& assignments, const temp_dir& dir,
                           dense_matrix* grid = nullptr, std::uint64_t seed = 3) {
  auto with_dump = assignments;
  const std::string path = dir.file(fmt::format("{}-{}.mtx", variant, n));
  if (grid) {
    std::filesystem::remove(path);  // dump= writes only a new file
    with_dump.push_back("dump=" + path);
  }
  const auto params = stencil_params(with_dump);
  const auto& v = find_variant("stencil", variant);
  auto w = find_problem("stencil").prepare({n, &params, seed, uses_gpu(v.backend) ? host_memory_kind::pinned : host_memory_kind::pageable});
  run_context ctx(n, params, devices_used(v.backend, gpu::device_count()));
  ctx.begin_repetition();
  auto got = v.run(*w, ctx);
  if (grid) *grid = read_matrix_market(path);
  return got;
}

/// Every case of `variants` at side n and the steps around k: verified, and the same grid as seq.
inline void expect_same_grid_as_seq(const std::vector<const char*>& variants, std::uint64_t n, int k, const temp_dir& dir) {
  for (const char* boundary : {"periodic", "fixed"})
    for (const char* type : {"f32", "f64"})
      for (int steps : {0, 1, 2, k - 1, k, k + 1, 3 * k + 1}) {
        if (steps < 0) continue;
        const std::vector<std::string> a = {fmt::format("k={}", k),
                                            fmt::format("steps={}", steps),
                                            std::string("boundary=") + boundary,
                                            std::string("type=") + type,
                                            "init=random",
                                            "cw=0.05",
                                            "ce=0.15",
                                            "cn=0.2",
                                            "cs=0.1",
                                            "c0=0.5"};
        dense_matrix expected, got;
        const auto seq = run_stencil("seq", n, a, dir, &expected);
        ASSERT_TRUE(seq.verified) << seq.reason;
        for (const char* name : variants) {
          const auto& v = find_variant("stencil", name);
          const auto params = stencil_params(a);
          if (v.not_applicable && v.not_applicable(params, n)) continue;
          const auto r = run_stencil(name, n, a, dir, &got);
          const std::string where = fmt::format("{} n={} k={} steps={} {} {}", name, n, k, steps, boundary, type);
          EXPECT_TRUE(r.verified) << where << ": " << r.reason;
          ASSERT_EQ(got.values.size(), expected.values.size()) << where;
          std::size_t differ = 0;
          for (std::size_t i = 0; i < got.values.size(); ++i) differ += got.values[i] != expected.values[i];
          EXPECT_EQ(differ, 0u) << where << ": cells that differ from seq's";
        }
      }
}

}  // namespace ema::test
