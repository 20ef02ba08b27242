// Key arrays (inputs/keys.hpp): every distribution has its shape, is a function of the seed alone,
// and the uniform one is exactly the array `search` has always scanned.
#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <vector>

#include "core/errors.hpp"
#include "inputs/keys.hpp"
#include "inputs/random.hpp"

namespace ema {
namespace {

template <class T = std::uint32_t>
std::vector<T> keys(key_distribution d, std::size_t n, std::uint64_t seed = 7, unsigned bits = 8 * sizeof(T)) {
  std::vector<T> v(n);
  fill_keys(std::span<T>(v), d, seed, bits);
  return v;
}

TEST(Keys, UniformIsSearchsArrayAndDependsOnlyOnTheSeed) {
  const auto v = keys(key_distribution::uniform, 10000, 42, 31);
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<std::uint32_t>(random_at(42, i) >> 33)) << i;
  EXPECT_EQ(keys(key_distribution::uniform, 10000, 42, 31), v);
  EXPECT_NE(keys(key_distribution::uniform, 10000, 43, 31), v);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 1u << 31);
  const auto f = keys<float>(key_distribution::uniform, 10000);
  EXPECT_GE(*std::min_element(f.begin(), f.end()), 0.0f);
  EXPECT_LT(*std::max_element(f.begin(), f.end()), 1.0f);
}

TEST(Keys, SortedReversedEqualAndFewHaveTheirShapes) {
  for (std::size_t n : {1ul, 2ul, 1000ul, 100003ul}) {
    const auto s = keys(key_distribution::sorted, n);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end())) << n;
    const auto r = keys(key_distribution::reversed, n);
    EXPECT_TRUE(std::is_sorted(r.rbegin(), r.rend())) << n;
    const auto e = keys(key_distribution::equal, n);
    EXPECT_EQ(std::set<std::uint32_t>(e.begin(), e.end()).size(), 1u) << n;
    const auto few = keys(key_distribution::few, n);
    EXPECT_LE(std::set<std::uint32_t>(few.begin(), few.end()).size(), 16u) << n;
  }
  const auto big = keys<std::uint64_t>(key_distribution::sorted, 1000);
  EXPECT_GT(big.back(), std::uint64_t{1} << 63);  // spread over the whole range
  const auto many = keys(key_distribution::few, 100000);
  EXPECT_EQ(std::set<std::uint32_t>(many.begin(), many.end()).size(), 16u);
}

TEST(Keys, OrganRisesThenFallsAndNearlyIsAlmostSorted) {
  const std::size_t n = 10001;
  const auto o = keys(key_distribution::organ, n);
  const auto peak = static_cast<std::size_t>(std::max_element(o.begin(), o.end()) - o.begin());
  EXPECT_TRUE(std::is_sorted(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(peak) + 1));
  EXPECT_TRUE(std::is_sorted(o.rbegin(), o.rend() - static_cast<std::ptrdiff_t>(peak)));
  EXPECT_NEAR(static_cast<double>(peak), n / 2.0, 1.0);
  const auto nearly = keys(key_distribution::nearly, n);
  std::size_t descents = 0;
  for (std::size_t i = 1; i < n; ++i) descents += nearly[i] < nearly[i - 1];
  EXPECT_GT(descents, 0u);
  EXPECT_LE(descents, 2 * (n / 100));  // each swap breaks the order at most twice
  auto sorted = nearly;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, keys(key_distribution::sorted, n));  // a permutation of sorted
}

TEST(Keys, ZipfFavoursTheFirstRanks) {
  const auto z = keys(key_distribution::zipf, 200000);
  std::map<std::uint32_t, std::size_t> count;
  for (auto k : z) ++count[k];
  std::vector<std::size_t> by_count;
  for (const auto& [k, c] : count) by_count.push_back(c);
  std::sort(by_count.rbegin(), by_count.rend());
  // P(rank 0) = ln 2 / ln(m + 1), about 5% for m = 2^17.6: far above a uniform draw's share.
  EXPECT_GT(by_count[0], z.size() / 40);
  EXPECT_GT(by_count[0], 1.5 * static_cast<double>(by_count[1]));
}

TEST(Keys, NamesAreParsedOrRefusedWithTheChoices) {
  EXPECT_EQ(key_distribution_from("organ"), key_distribution::organ);
  try {
    key_distribution_from("gauss");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("uniform|sorted|reversed|equal|few|organ|nearly|zipf"), std::string::npos);
  }
}

}  // namespace
}  // namespace ema
