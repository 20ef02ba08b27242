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

}  // namespace
}  // namespace ema
