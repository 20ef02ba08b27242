#include <algorithm>
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/sizes.hpp"

namespace ema {
namespace {

using sizes = std::vector<std::uint64_t>;

std::string error_of(const char* text) {
  try {
    parse_sizes(text);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

TEST(Sizes, Numbers) {
  EXPECT_EQ(parse_size_number("4096"), 4096u);
  EXPECT_EQ(parse_size_number("2^20"), 1u << 20);
  EXPECT_EQ(parse_size_number("1e6"), 1000000u);
  EXPECT_EQ(parse_size_number("3e0"), 3u);
  EXPECT_EQ(parse_size_number(" 0 "), 0u);
}

TEST(Sizes, ListsAreSortedAndDistinct) { EXPECT_EQ(parse_sizes("5000,1000,2000,1000"), (sizes{1000, 2000, 5000})); }

TEST(Sizes, DoublingRange) {
  EXPECT_EQ(parse_sizes("2^10..2^13"), (sizes{1024, 2048, 4096, 8192}));
  EXPECT_EQ(parse_sizes("3..20"), (sizes{3, 6, 12}));
}

TEST(Sizes, FactorAndStepRanges) {
  EXPECT_EQ(parse_sizes("2^10..2^16*4"), (sizes{1 << 10, 1 << 12, 1 << 14, 1 << 16}));
  EXPECT_EQ(parse_sizes("2000..5000+1000"), (sizes{2000, 3000, 4000, 5000}));
  EXPECT_EQ(parse_sizes("10..20*1.5"), (sizes{10, 15}));
  EXPECT_EQ(parse_sizes("0..2+1,7"), (sizes{0, 1, 2, 7}));
}

TEST(Sizes, MalformedTextSaysWhatIsWrong) {
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("1000,,2000").find("empty item"), std::string::npos);
  EXPECT_NE(error_of("2^x").find("'2^x' is not a number"), std::string::npos);
  EXPECT_NE(error_of("abc").find("'abc' is not a number"), std::string::npos);
  EXPECT_NE(error_of("-5").find("negative"), std::string::npos);
  EXPECT_NE(error_of("2^20..2^10").find("start is larger than its end"), std::string::npos);
  EXPECT_NE(error_of("0..100").find("cannot start at 0"), std::string::npos);
  EXPECT_NE(error_of("1..100*1").find("factor greater than 1"), std::string::npos);
  EXPECT_NE(error_of("1..100+0").find("step of 0"), std::string::npos);
  EXPECT_NE(error_of("1..100*").find("empty step"), std::string::npos);
  EXPECT_NE(error_of("2^60").find("too large"), std::string::npos);
  EXPECT_NE(error_of("1e30").find("too large"), std::string::npos);
}

TEST(Sizes, InterleavedOrderRunsEverySizeOnceWithNeighboursApart) {
  const sizes eight{1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(run_order(eight, size_order::interleaved), (sizes{1, 5, 3, 7, 2, 6, 4, 8}));
  EXPECT_EQ(run_order(eight, size_order::ascending), eight);
  // Any count: a permutation; from 7 sizes no two neighbouring sizes run one after the other
  // (below, one pair may), and from 12 any quarter of the runs in a row (a busy spell) spans at least
  // half the range.
  for (std::size_t k = 3; k <= 64; ++k) {
    sizes s;
    for (std::size_t i = 0; i < k; ++i) s.push_back(1000 + i);
    auto order = run_order(s, size_order::interleaved);
    ASSERT_EQ(order.size(), k);
    auto sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, s) << k;
    int adjacent = 0;
    for (std::size_t i = 1; i < k; ++i) adjacent += std::max(order[i], order[i - 1]) - std::min(order[i], order[i - 1]) == 1;
    EXPECT_LE(adjacent, k >= 7 ? 0 : 1) << k;
    if (k < 12) continue;
    const std::size_t w = k / 4;
    for (std::size_t i = 0; i + w <= k; ++i) {
      const auto [lo, hi] = std::minmax_element(order.begin() + static_cast<std::ptrdiff_t>(i), order.begin() + static_cast<std::ptrdiff_t>(i + w));
      EXPECT_GE(*hi - *lo, k / 2) << k << " from run " << i;
    }
  }
  EXPECT_EQ(run_order(sizes{7, 9}, size_order::interleaved), (sizes{7, 9}));
  EXPECT_EQ(parse_size_order("ascending"), size_order::ascending);
  try {
    parse_size_order("random");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("interleaved or ascending"), std::string::npos);
  }
}

}  // namespace
}  // namespace ema
