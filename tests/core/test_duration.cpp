#include <gtest/gtest.h>

#include "core/duration.hpp"
#include "core/errors.hpp"

namespace ema {
namespace {

TEST(Duration, ParsesUnitsAndCombinations) {
  EXPECT_DOUBLE_EQ(parse_duration("90"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("90s"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("2m"), 120);
  EXPECT_DOUBLE_EQ(parse_duration("2.5m"), 150);
  EXPECT_DOUBLE_EQ(parse_duration("1h30m"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration("0.5s"), 0.5);
}

TEST(Duration, RejectsWhatIsNotADuration) {
  for (const char* bad : {"", "soon", "2 m", "2x", "-5s", "0", "m", "1h-2m"}) EXPECT_THROW(parse_duration(bad), usage_error) << bad;
  try {
    parse_duration("2d");
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown unit 'd'"), std::string::npos) << e.what();
  }
}

TEST(Duration, Formats) {
  EXPECT_EQ(format_duration(120), "2m");
  EXPECT_EQ(format_duration(5400), "1h30m");
  EXPECT_EQ(format_duration(75), "1m15s");
  EXPECT_EQ(format_duration(6), "6s");
}

}  // namespace
}  // namespace ema
