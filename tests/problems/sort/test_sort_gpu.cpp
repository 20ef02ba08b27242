// sort on the GPU (run on the GPU machine; exits 77 elsewhere): every CUDA variant sorts larger
// inputs than the conformance cases (2^22 + 3 keys, every distribution, all three key types); the
// CUDA-DP variants record their device launches and depth (merge-cdp's exactly, batches included); quick-cdp
// sorts correctly when its depth limit forces the one-block fallback, and when many keys equal a
// pivot (the copy grid and the tail-launched children); quick-sample's parts stay within a block's
// tile and it sorts at every shape of its one or two levels; the host loops record their iterations; quick-sample's and merge-path's kernel parts add up
// to their kernel time; merge-path's two-way and four-way passes sort at every awkward size (a
// partial tile, a partial group, an odd power of two of runs) and take the passes they should.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "measure/gpu.hpp"
#include "problems/conformance.hpp"
#include "problems/sort/sort_cases.hpp"

namespace ema {
namespace {

struct ran {
  outcome result;
  std::map<std::string, std::string> notes;
  std::map<std::string, double> phases;
};

ran run_sort(const char* variant, std::uint64_t n, const std::vector<std::string>& a) {
  const auto& p = find_problem("sort");
  auto params = param_set::resolve("sort", p.params, {});
  for (const auto& s : a) params = params.with(s.substr(0, s.find('=')), s.substr(s.find('=') + 1));
  const auto& v = find_variant("sort", variant);
  auto w = p.prepare({n, &params, 11, host_memory_kind::pinned});
  run_context ctx(n, params, devices_used(v.backend, gpu::device_count()));
  ctx.begin_repetition();
  auto result = v.run(*w, ctx);
  ran r{result, ctx.notes(), ctx.phases()};
  return r;
}

const std::vector<const char*> gpu_variants = {"quick-cuda",   "merge-cuda", "quick-cdp", "merge-cdp",  "merge-path",
                                               "quick-sample", "cub-radix",  "cub-merge", "thrust-sort"};

TEST(SortGpu, EveryVariantSortsLargerInputsOfEveryKind) {
  const std::uint64_t n = (1u << 22) + 3;
  for (const char* name : gpu_variants)
    for (const char* dist : {"uniform", "sorted", "reversed", "equal", "few", "organ", "nearly", "zipf"})
      for (const char* type : {"u32", "u64", "f32"}) {
        if (std::string(name) == "merge-cuda" && std::string(type) != "u32") continue;  // one thread merges n keys at the end: slow
        const auto r = run_sort(name, n, {std::string("dist=") + dist, std::string("type=") + type});
        EXPECT_TRUE(r.result.verified) << name << " " << dist << " " << type << ": " << r.result.reason;
      }
}

TEST(SortGpu, EveryVariantSortsSignedKeysAndBothZerosFromAFile) {
  // Negative floats, -0 and +0, the types' extremes, repeated and shuffled: the radix sorts order
  // the bits, the others compare.
  test::temp_dir dir;
  for (const char* type : {"u32", "u64", "f32"}) {
    const auto path = test::signed_keys_file(dir, type);
    const std::uint64_t n =
        find_problem("sort").size_from_input(param_set::resolve("sort", find_problem("sort").params, {std::string("type=") + type, "input=" + path}));
    for (const char* name : gpu_variants) {
      const auto r = run_sort(name, n, {std::string("type=") + type, "input=" + path});
      EXPECT_TRUE(r.result.verified) << name << " " << type << ": " << r.result.reason;
    }
  }
}

/// ceil(log_base(runs)) for runs >= 1: the merge passes over `runs` sorted tiles.
int passes_over(std::uint64_t runs, std::uint64_t base) {
  int p = 0;
  for (std::uint64_t width = 1; width < runs; width *= base) ++p;
  return p;
}

void merge_path_sorts(const std::vector<std::uint64_t>& sizes) {
  for (const std::uint64_t n : sizes)
    for (const char* ways : {"2", "4"})
      for (const char* type : {"u32", "u64", "f32"})
        for (const char* dist : {"uniform", "few", "reversed"}) {
          const auto r = run_sort("merge-path", n, {std::string("launch.ways=") + ways, std::string("type=") + type, std::string("dist=") + dist});
          EXPECT_TRUE(r.result.verified) << n << " ways " << ways << " " << type << " " << dist << ": " << r.result.reason;
          EXPECT_EQ(r.notes.at("passes"), std::to_string(passes_over((n + 4095) / 4096, std::stoull(ways)))) << n << " ways " << ways;
        }
}

// 4096-key tiles; four-way groups of 4, 16, 64 ... tiles, the last one short or nearly empty. The
// small shapes are also what compute-sanitizer's racecheck runs (docs/perf-notes.md).
TEST(SortGpu, MergePathSortsEverySmallShapeOfGroupWithTwoOrFourWays) {
  merge_path_sorts({1, 4095, 4096, 4097, 8193, 3 * 4096 + 5, 16384, 16385, 5 * 4096 + 1, 65536 + 4096 * 3 + 7});
}

TEST(SortGpu, MergePathSortsLargeGroupsWithTwoOrFourWays) { merge_path_sorts({(1ull << 18) + 1, (1ull << 21) - 5, (1ull << 21) + 4096 * 17 + 9}); }

TEST(SortGpu, MergeCdpLaunchesItsTreeExactly) {
  // n, leaf depth L (leaves of at most 2^15 keys), device launches: 3 per node above the batches
  // at depth B = max(0, L - 6), one merge grid per level within each batch: 3 (2^B - 1) + 2^B (L - B).
  struct expected {
    std::uint64_t n;
    int levels;
    long long launches;
  };
  for (const auto& e : {expected{4096, 0, 0}, expected{4097, 0, 0}, expected{32768, 0, 0}, expected{32769, 1, 1}, expected{1ull << 20, 5, 5},
                        expected{(1ull << 20) + 5, 6, 6}, expected{(1ull << 21) + 1, 7, 3 + 2 * 6}, expected{(1ull << 22) + 3, 8, 3 * 3 + 4 * 6}}) {
    const auto r = run_sort("merge-cdp", e.n, {});
    ASSERT_TRUE(r.result.verified) << e.n << ": " << r.result.reason;
    EXPECT_EQ(r.notes.at("levels"), std::to_string(e.levels)) << e.n;
    EXPECT_EQ(r.notes.at("device_launches"), std::to_string(e.launches)) << e.n;
    EXPECT_EQ(r.notes.at("depth"), std::to_string(e.levels)) << e.n;
  }
}

TEST(SortGpu, QuickCdpRecordsItsTreeAndFallsBackAtItsDepthLimit) {
  const std::uint64_t n = (1u << 22) + 1;
  const auto deep = run_sort("quick-cdp", n, {"dist=uniform"});
  ASSERT_TRUE(deep.result.verified) << deep.result.reason;
  EXPECT_GT(std::stoll(deep.notes.at("device_launches")), 2 * static_cast<long long>(n / 32768) / 3);  // leaves of at most 2^15 keys
  EXPECT_GE(std::stoi(deep.notes.at("depth")), 10);
  // A few parts whose pivots kept splitting badly reach level 22 and are sorted by one block.
  EXPECT_LE(std::stoll(deep.notes.at("fallbacks")) * 20, std::stoll(deep.notes.at("device_launches")));
  const auto shallow = run_sort("quick-cdp", n, {"dist=uniform", "launch.levels=2"});
  ASSERT_TRUE(shallow.result.verified) << shallow.result.reason;
  EXPECT_EQ(shallow.notes.at("depth"), "2");
  EXPECT_GT(std::stoi(shallow.notes.at("fallbacks")), 0);
  for (const char* dist : {"equal", "few"}) {  // more than 2^16 keys equal to a pivot: a copy grid, then a tail launch
    const auto r = run_sort("quick-cdp", n, {std::string("dist=") + dist});
    EXPECT_TRUE(r.result.verified) << dist << ": " << r.result.reason;
  }
}

TEST(SortGpu, QuickSampleKeepsItsPartsSmall) {
  // 2^22 + 9 keys: 2049 parts of 2048 wanted, so two levels, the first with ceil(sqrt(2049)) = 46
  // parts between splitters (91 segments for the second, the equal ones among them); the second
  // gives each segment size / 2048 parts, rounded up: 2049 to 2049 + 91 in all.
  for (const char* dist : {"uniform", "sorted", "zipf", "few"}) {
    const auto r = run_sort("quick-sample", (1u << 22) + 9, {std::string("dist=") + dist});
    ASSERT_TRUE(r.result.verified) << dist << ": " << r.result.reason;
    EXPECT_EQ(r.notes.at("levels"), "2") << dist;
    EXPECT_EQ(r.notes.at("first_level_parts"), "46") << dist;
    EXPECT_LE(std::stoll(r.notes.at("parts")), 2049 + 91) << dist;
    if (std::string(dist) == "uniform" || std::string(dist) == "sorted") EXPECT_GE(std::stoll(r.notes.at("parts")), 2049) << dist;
    EXPECT_LE(std::stoll(r.notes.at("fallbacks")), 20) << dist << ": parts over 4096 keys should be rare with 32-fold oversampling";
  }
}

TEST(SortGpu, QuickSampleSortsEveryShapeOfItsLevels) {
  // Around each boundary of the plan: one key, a part, one level (up to 256 parts of 2048, 2^19
  // keys), two levels from 2^19 + 1, a last tile of one key; every distribution that makes equal
  // parts (equal, few, zipf) or empty ones (sorted, organ), each key type, the scatter reading the
  // parts the count kept or classifying again.
  for (const std::uint64_t n :
       {1ull, 2ull, 3ull, 100ull, 2047ull, 2048ull, 2049ull, 4097ull, 70001ull, (1ull << 19), (1ull << 19) + 1, (3ull << 20) + 7})
    for (const char* dist : {"uniform", "sorted", "equal", "few", "organ", "zipf"})
      for (const char* type : {"u32", "u64", "f32"})
        for (const char* keep : {"launch.keep_parts=0", "launch.keep_parts=1"}) {
          const auto r = run_sort("quick-sample", n, {std::string("dist=") + dist, std::string("type=") + type, keep});
          EXPECT_TRUE(r.result.verified) << n << " " << dist << " " << type << " " << keep << ": " << r.result.reason;
          if (n > 1) EXPECT_EQ(r.notes.at("levels"), n <= (1ull << 19) ? "1" : "2") << n;
        }
}

TEST(SortGpu, KernelPartsBreakTheKernelPhaseDownWithoutCountingTwice) {
  // Parts timed inside the kernel phase are stored under their own names and not added to `kernel`
  // again (measure/cuda/session.cuh): their sum is within the kernel time, and most of it.
  const std::map<std::string, std::vector<std::string>> parts = {{"quick-sample", {"sample", "classify", "scatter", "blocks"}},
                                                                 {"merge-path", {"tiles", "merges"}}};
  for (const auto& [variant, names] : parts) {
    const auto r = run_sort(variant.c_str(), 1u << 24, {});
    ASSERT_TRUE(r.result.verified) << variant << ": " << r.result.reason;
    double sum = 0;
    for (const auto& name : names) {
      ASSERT_TRUE(r.phases.count(name)) << variant << " has no part " << name;
      EXPECT_GT(r.phases.at(name), 0) << variant << " " << name;
      sum += r.phases.at(name);
    }
    const double kernel = r.phases.at("kernel");
    EXPECT_LE(sum, kernel * 1.001 + 1e-6) << variant;
    EXPECT_GE(sum, 0.8 * kernel) << variant << ": the parts should cover the kernel phase";
  }
}

TEST(SortGpu, HostLoopsRecordTheirIterations) {
  const auto q = run_sort("quick-cuda", 1u << 20, {});
  ASSERT_TRUE(q.result.verified) << q.result.reason;
  const int iterations = std::stoi(q.notes.at("iterations"));
  EXPECT_GE(iterations, 15);
  EXPECT_LE(iterations, 120);
  EXPECT_EQ(run_sort("quick-cuda", 1u << 20, {"dist=equal"}).notes.at("iterations"), "1");
  const auto m = run_sort("merge-cuda", (1u << 20) + 1, {});
  ASSERT_TRUE(m.result.verified) << m.result.reason;
  EXPECT_EQ(m.notes.at("passes"), "21");
}

}  // namespace
}  // namespace ema
