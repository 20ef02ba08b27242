#include <cmath>
#include <gtest/gtest.h>

#include "core/format.hpp"

namespace ema {
namespace {

TEST(Format, Times) {
  EXPECT_EQ(format_time(812e-9), "812 ns");
  EXPECT_EQ(format_time(1.25e-3), "1.25 ms");
  EXPECT_EQ(format_time(3.4), "3.4 s");
  EXPECT_EQ(format_time(42e-6), "42 µs");
  EXPECT_EQ(format_time(std::nan("")), "-");
}

TEST(Format, BytesRatesEnergies) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1.5 * 1024 * 1024), "1.5 MiB");
  EXPECT_EQ(format_rate(12.34e9), "12.3 GB/s");
  EXPECT_EQ(format_energy(4.21e-3), "4.21 mJ");
  EXPECT_EQ(format_energy(0), "0 J");
  EXPECT_EQ(format_ratio(3.704), "3.70x");
  EXPECT_EQ(format_percent(0.952), "95.2%");
  EXPECT_EQ(format_percent(std::nan("")), "-");
}

// One notation for sizes (issue 31, item 2): powers of two as such, small integers exact, the
// rest three digits and a decimal suffix, never an exponent.
TEST(Format, SizesHaveOneNotation) {
  EXPECT_EQ(format_size(1 << 20), "2^20");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(23170), "23170");
  EXPECT_EQ(format_size(1143481), "1.14M");
  EXPECT_EQ(format_size(2.52e8), "252M");
  EXPECT_EQ(format_size(9.59e12), "9.59T");
  EXPECT_EQ(format_size(999999), "1M");
  EXPECT_EQ(format_size(123456.7), "123k");
  EXPECT_EQ(format_size(2.5), "2.5");
}

}  // namespace
}  // namespace ema
