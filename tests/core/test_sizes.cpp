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

}  // namespace
}  // namespace ema
