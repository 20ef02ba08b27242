// rqa on the GPU: exact-cuda against the full-matrix reference for every norm, window, embedding and
// strictness, and equal to exact-seq past the reference's limit; microstates-cuda and motif-cuda give
// exactly their CPU twins' answers (the same microstates, the same cells), verified.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "problems/conformance.hpp"
#include "problems/rqa/rqa.hpp"

namespace ema {
namespace {

param_set params_of(const std::vector<std::string>& a) { return param_set::resolve("rqa", find_problem("rqa").params, a); }

/// The same answer (conformance.hpp: floating-point numbers to 1e-9 relative, the rest exactly).
bool same(const std::string& a, const std::string& b) { return test::same_answer(nlohmann::json::parse(a), nlohmann::json::parse(b)); }

/// Runs `variant` at n with `args`, expects it verified, returns its result JSON.
std::string run(const char* variant, std::uint64_t n, const std::vector<std::string>& args, std::uint64_t seed = 3) {
  auto p = params_of(args);
  const auto& v = find_variant("rqa", variant);
  auto work = find_problem("rqa").prepare({n, &p, seed, uses_gpu(v.backend) ? host_memory_kind::pinned : host_memory_kind::pageable});
  run_context ctx(n, p, uses_gpu(v.backend) ? 1 : 0);
  auto got = v.run(*work, ctx);
  std::string where = std::string(variant) + " n=" + std::to_string(n);
  for (const auto& a : args) where += " " + a;
  EXPECT_TRUE(got.verified) << where << ": " << got.reason;
  return got.result_json;
}

TEST(RqaGpu, ExactCudaMatchesTheReferenceForEveryNormWindowAndEmbedding) {
  for (const char* norm : {"max", "euclidean", "manhattan"})
    for (const char* m : {"1", "3"})
      for (const char* tau : {"1", "2"})
        for (const char* w : {"0", "1", "5"})
          for (const char* strict : {"true", "false"})
            for (std::uint64_t n : {1ull, 2ull, 7ull, 150ull, 700ull}) {
              if (n <= 4 && std::string(m) == "3") continue;
              std::vector<std::string> args{"system=logistic",
                                            std::string("norm=") + norm,
                                            std::string("m=") + m,
                                            std::string("tau=") + tau,
                                            std::string("theiler=") + w,
                                            std::string("strict=") + strict,
                                            "eps=0.2"};
              run("exact-cuda", n, args);
            }
}

TEST(RqaGpu, ExactCudaCarriesLongLinesAndHandlesEdgeCases) {
  // Long lines (a sine: whole diagonals), every recurrent (eps above the range), none (eps = 0).
  for (const char* system : {"sine", "noise", "rossler"})
    for (const char* eps : {"0", "0.05", "3"}) run("exact-cuda", 3000, {std::string("system=") + system, std::string("eps=") + eps});
  run("exact-cuda", 3000, {"system=noise", "eps=0", "strict=false", "theiler=0"});
}

TEST(RqaGpu, ExactCudaEqualsExactSeqPastTheReference) {
  for (const char* w : {"0", "1", "30"}) {
    const std::vector<std::string> args{"system=logistic", std::string("theiler=") + w};
    EXPECT_TRUE(same(run("exact-cuda", 6000, args), run("exact-seq", 6000, args))) << "theiler=" << w;
  }
}

TEST(RqaGpu, MicrostatesCudaGivesMicrostatesSeqsAnswer) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"Q=60", "samples=400"}, {"m=2", "tau=3", "norm=euclidean", "samples=300"}, {"theiler=0", "Q=32", "samples=1000", "vmin=3"}})
    EXPECT_TRUE(same(run("microstates-cuda", 2500, args), run("microstates-seq", 2500, args)));
}

TEST(RqaGpu, MotifCudaDrawsMotifSeqsCells) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"system=logistic", "cells=200000"},
                                                                {"system=noise", "cells=100000", "eps_mode=rr", "eps=0.1"},
                                                                {"system=rossler", "cells=100000", "m=2", "tau=4", "theiler=5"},
                                                                {"system=logistic", "cells=10000", "rse=0.004"}})
    EXPECT_TRUE(same(run("motif-cuda", 3000, args), run("motif-seq", 3000, args)));
  // A sine with a tiny eps: its recurrent diagonals (offsets a multiple of the period) are whole
  // lines, about a third longer than the device histogram's 4096, so their starts (about 60 in
  // 2·10^7 cells) go through the overflow list, and L and ENTR still come out the same.
  const std::vector<std::string> sine{"system=sine", "eps=1e-9", "cells=20000000"};
  const auto gpu = run("motif-cuda", 6000, sine), cpu = run("motif-seq", 6000, sine);
  EXPECT_TRUE(same(gpu, cpu)) << gpu << " and " << cpu;
  EXPECT_GT(nlohmann::json::parse(cpu)["L"].get<double>(), 1000);
}

}  // namespace
}  // namespace ema
