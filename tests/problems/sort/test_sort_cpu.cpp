// sort: the verifier catches a wrong output (unsorted, or sorted but not the input's keys), the
// fingerprint is order-independent, and keys read from a file, good and malformed.
#include <algorithm>
#include <fstream>
#include <functional>
#include <tuple>
#include <unistd.h>
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/sort/sort.hpp"
#include "problems/sort/sort_cases.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

param_set sort_params(const std::vector<std::string>& a) { return param_set::resolve("sort", find_problem("sort").params, a); }

sort::input make(std::uint64_t n, const std::vector<std::string>& a) {
  const auto p = sort_params(a);
  return sort::traits::generate({n, &p, 7, host_memory_kind::pageable});
}

sort::output as_output(const std::vector<std::uint32_t>& k) {
  sort::output o;
  o.keys = k.data();
  return o;
}

TEST(Sort, VerifierCatchesWrongOutputs) {
  const auto in = make(5000, {"dist=few"});
  const auto expected = sort::traits::reference(in);
  std::vector<std::uint32_t> keys(in.keys<std::uint32_t>(), in.keys<std::uint32_t>() + in.n);
  std::sort(keys.begin(), keys.end());
  const auto right = sort::traits::check(in, expected, as_output(keys));
  EXPECT_TRUE(right.verified) << right.reason;
  EXPECT_NE(right.result_json.find(R"("n":5000)"), std::string::npos) << right.result_json;

  auto unsorted = keys;
  std::swap(unsorted[10], unsorted[4000]);
  auto r = sort::traits::check(in, expected, as_output(unsorted));
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.reason.find("not sorted"), std::string::npos) << r.reason;

  auto lost = keys;  // sorted, but one key replaced by a smaller neighbour: not a permutation
  const auto step = std::adjacent_find(lost.begin() + 2500, lost.end(), std::not_equal_to<>()) - lost.begin();
  ASSERT_LT(step + 1, static_cast<std::ptrdiff_t>(lost.size()));
  lost[step + 1] = lost[step];
  r = sort::traits::check(in, expected, as_output(lost));
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.reason.find("not a permutation"), std::string::npos) << r.reason;
  EXPECT_FALSE(sort::traits::check(in, expected, sort::output{}).verified);
}

TEST(Sort, FingerprintIgnoresOrderButNotContent) {
  std::vector<std::uint64_t> a = {5, 1, 9, 9, 0}, b = {9, 0, 9, 1, 5}, c = {5, 1, 9, 8, 0};
  EXPECT_EQ(sort::fingerprint_of(a.data(), a.size()), sort::fingerprint_of(b.data(), b.size()));
  EXPECT_FALSE(sort::fingerprint_of(a.data(), a.size()) == sort::fingerprint_of(c.data(), c.size()));
  std::vector<float> z = {0.0f}, nz = {-0.0f};
  EXPECT_FALSE(sort::fingerprint_of(z.data(), 1) == sort::fingerprint_of(nz.data(), 1)) << "keys are compared by their bits";
}

TEST(Sort, KeysFromAFile) {
  test::temp_dir dir;
  const auto path = dir.file("k.txt");
  std::ofstream(path) << "# keys\n7\n3\n\n4000000000\n0\n";
  const auto& problem = find_problem("sort");
  EXPECT_EQ(problem.size_from_input(sort_params({"input=" + path})), 4u);
  const auto in = make(4, {"input=" + path});
  EXPECT_EQ(in.origin, path);
  EXPECT_EQ(in.keys<std::uint32_t>()[2], 4000000000u);
  auto refused = [&](const std::string& text, const std::vector<std::string>& extra, std::uint64_t n, const char* needle) {
    const auto bad = dir.file("bad.txt");
    std::ofstream(bad) << text;
    auto a = extra;
    a.push_back("input=" + bad);
    try {
      problem.validate(sort_params(a), std::span<const std::uint64_t>(&n, 1));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refused("1\n-2\n", {}, 2, "bad.txt:2: '-2' is not a non-negative integer");
  refused("1\n5000000000\n", {}, 2, "beyond the range of u32");
  refused("1.5\n2\n", {"type=f32"}, 3, "holds 2 keys, but the point asks n = 3");
  refused("1e39\n", {"type=f32"}, 1, "beyond the range of f32");
  refused("nan\n", {"type=f32"}, 1, "not finite");
  // A binary file's NUL and control bytes are quoted escaped, and the message does not stop at the NUL.
  refused(std::string("7\n12\0ab\x1b[2J\n", 13), {}, 2, "bad.txt:2: '12\\x00ab\\x1b[2J' is not a non-negative integer");
  refused(std::string(100, '9') + "x\n", {}, 1, "bad.txt:1: '9999999999999999999999999999999999999999...' is ");
}

TEST(Sort, EveryCpuVariantSortsSignedKeysAndBothZerosFromAFile) {
  test::temp_dir dir;
  const auto& problem = find_problem("sort");
  int checked = 0;
  for (const char* type : {"u32", "u64", "f32"}) {
    const auto path = test::signed_keys_file(dir, type);
    const auto params = sort_params({std::string("type=") + type, "input=" + path});
    const std::uint64_t n = problem.size_from_input(params);
    auto w = problem.prepare({n, &params, 1, host_memory_kind::pageable});
    for (const auto* v : variants_of("sort")) {
      if (uses_gpu(v->backend)) continue;
      run_context ctx(n, params, 0);
      ctx.begin_repetition();
      const auto got = v->run(*w, ctx);
      EXPECT_TRUE(got.verified) << v->name << " " << type << ": " << got.reason;
      ++checked;
    }
  }
  EXPECT_GE(checked, 3 * 2);  // std-sort and merge-omp at least, in every build
}

TEST(Sort, WorkModelCountsKeys) {
  const auto w = find_problem("sort").work(1000, sort_params({"type=u64"}));
  EXPECT_EQ(w.ops, 1000.0);
  EXPECT_EQ(w.bytes, 2 * 8 * 1000.0);
}

}  // namespace
}  // namespace ema

namespace ema {
namespace {

// radix-omp streams its scatter past the caches (non-temporal stores) only where its two arrays
// do not fit the last one, and through them otherwise (issue 33): both paths sort every kind of
// key, stably, and say which they took. The streaming path needs an input past the cache: 2n keys
// of 8 bytes over the size the C library reads for it (a few hundred MiB on a server).
TEST(Sort, RadixOmpSortsThroughTheCacheAndPastIt) {
  const auto* v = lookup_variant("sort", "radix-omp");
  ASSERT_NE(v, nullptr);
  const auto& problem = find_problem("sort");
  long cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (cache <= 0) cache = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (cache <= 0) cache = 32l << 20;
  const std::uint64_t past = static_cast<std::uint64_t>(cache) / 16 + 4099;  // 2 · n · 8 bytes > the cache
  for (const auto& [n, type, dist, stores] : {std::tuple<std::uint64_t, const char*, const char*, const char*>{100003, "f32", "uniform", "cached"},
                                              {past, "u64", "uniform", "non-temporal"},
                                              {past, "u64", "few", "non-temporal"}}) {
    const auto params = sort_params({std::string("type=") + type, std::string("dist=") + dist});
    auto w = problem.prepare({n, &params, 7, host_memory_kind::pageable});
    run_context ctx(n, params, 0);
    ctx.begin_repetition();
    const auto got = v->run(*w, ctx);
    EXPECT_TRUE(got.verified) << n << " " << type << " " << dist << ": " << got.reason;
    EXPECT_EQ(ctx.notes().at("stores"), stores) << n;
  }
}

// radix-omp's MSD pass (launch.msd, launch.bucket_bits; issue 33): from 2^18 keys the top digit
// first moves the keys into buckets of about 2^bucket_bits keys, each then sorted by one thread;
// where one bucket would hold over half a thread's share (equal keys, a few values, zipf's small
// ones) the LSD passes run instead and the note says why. Every kind of key, either way, sorted.
TEST(Sort, RadixOmpMsdPassMakesBucketsOrStepsAsideWhenTheyAreUneven) {
  const auto* v = lookup_variant("sort", "radix-omp");
  ASSERT_NE(v, nullptr);
  const auto& problem = find_problem("sort");
  struct want {
    std::uint64_t n;
    const char* params;
    std::int64_t buckets;  // -1: refused as uneven; -2: either, as the keys fall (the note says which)
  };
  for (const auto& [n, extra, buckets] : {want{(1u << 18) + 3, "type=u32,dist=uniform", 256}, want{(1u << 18) + 3, "type=u64,dist=reversed", 256},
                                          want{(1u << 18) + 3, "type=f32,dist=organ", -2}, want{(1u << 18) + 3, "type=u32,dist=equal", -1},
                                          want{(1u << 18) + 3, "type=u64,dist=zipf", -2}, want{(1u << 18) - 1, "type=u32,dist=uniform", 0},
                                          want{(1u << 20) + 7, "type=u32,dist=nearly", 256}, want{(1u << 20) + 7, "type=f32,dist=uniform", -2}}) {
    for (const char* how : {"", "launch.msd=0", "launch.bucket_bits=12"}) {
      std::vector<std::string> ps;
      for (std::string_view rest = extra; !rest.empty();) {
        const auto comma = rest.find(',');
        ps.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
      auto params = sort_params(ps);
      if (*how) {
        const std::string h = how;
        params = params.with(h.substr(0, h.find('=')), h.substr(h.find('=') + 1));
      }
      auto w = problem.prepare({n, &params, 5, host_memory_kind::pageable});
      run_context ctx(n, params, 0);
      ctx.begin_repetition();
      const auto got = v->run(*w, ctx);
      EXPECT_TRUE(got.verified) << n << " " << extra << " " << how << ": " << got.reason;
      const auto made = std::stoll(ctx.notes().at("msd_buckets"));
      const bool off = std::string(how) == "launch.msd=0";
      if (off || buckets == 0) {
        EXPECT_EQ(made, 0) << n << " " << extra << " " << how;
        EXPECT_EQ(ctx.notes().count("msd_refused"), 0u) << n << " " << extra << " " << how;
      } else if (buckets == -1 || (buckets == -2 && made == 0)) {
        EXPECT_EQ(made, 0) << n << " " << extra << " " << how;
        ASSERT_EQ(ctx.notes().count("msd_refused"), 1u) << n << " " << extra << " " << how;
        EXPECT_NE(ctx.notes().at("msd_refused").find("largest bucket"), std::string::npos) << extra;
      } else if (buckets == -2) {
        EXPECT_EQ(ctx.notes().count("msd_refused"), 0u) << n << " " << extra << " " << how;
        EXPECT_GE(made, 256) << n << " " << extra << " " << how;
      } else {
        // bucket_bits=12 at 2^20 keys: 2^8 keys a bucket wanted, 2^11 buckets at most.
        const std::int64_t expect = std::string(how) == "launch.bucket_bits=12" && n > (1u << 20) ? 512 : buckets;
        EXPECT_EQ(made, expect) << n << " " << extra << " " << how;
      }
    }
  }
}

// radix-omp's digit (launch.digit_bits): 11 bits unless given, any width from 4 to 11; every width
// sorts every kind of key and is recorded.
TEST(Sort, RadixOmpSortsWithEveryDigitWidth) {
  const auto* v = lookup_variant("sort", "radix-omp");
  ASSERT_NE(v, nullptr);
  const auto& problem = find_problem("sort");
  for (const char* type : {"u32", "u64", "f32"})
    for (const char* bits : {"", "4", "5", "8", "11"}) {
      auto params = sort_params({std::string("type=") + type});
      if (*bits) params = params.with("launch.digit_bits", bits);
      const std::uint64_t n = 70001;
      auto w = problem.prepare({n, &params, 11, host_memory_kind::pageable});
      run_context ctx(n, params, 0);
      ctx.begin_repetition();
      const auto got = v->run(*w, ctx);
      EXPECT_TRUE(got.verified) << type << " " << bits << ": " << got.reason;
      const auto taken = std::stoi(ctx.notes().at("launch.digit_bits"));
      EXPECT_EQ(taken, *bits ? std::stoi(bits) : 11) << type;
      const int key_bits = std::string(type) == "u64" ? 64 : 32;
      // Passes whose digit every key shares are skipped: at most one a digit.
      const int passes = std::stoi(ctx.notes().at("passes"));
      EXPECT_LE(passes, (key_bits + taken - 1) / taken) << type << " " << bits;
      EXPECT_GE(passes, key_bits / taken / 2) << type << " " << bits;
    }
  // Outside 4..11 is refused, naming the setting.
  for (const char* bad : {"3", "12"}) {
    const auto params = sort_params({}).with("launch.digit_bits", bad);
    auto w = problem.prepare({1000, &params, 11, host_memory_kind::pageable});
    run_context ctx(1000, params, 0);
    ctx.begin_repetition();
    EXPECT_THROW(
        {
          try {
            v->run(*w, ctx);
          } catch (const std::exception& e) {
            EXPECT_NE(std::string(e.what()).find("digit_bits"), std::string::npos) << e.what();
            throw;
          }
        },
        std::exception)
        << bad;
  }
}

}  // namespace
}  // namespace ema
