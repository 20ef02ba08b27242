#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "measure/energy.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

TEST(Energy, SourcesCarryTheirReasonWhenUnavailable) {
  auto s = open_energy_sources({}, "not measured: the variant uses no GPU", "/nonexistent/powercap");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].metric, "energy_gpu");
  EXPECT_EQ(s[0].unavailable, "not measured: the variant uses no GPU");
  EXPECT_FALSE(s[0].read);
  EXPECT_EQ(s[1].metric, "energy_cpu");
  EXPECT_NE(s[1].unavailable.find("powercap"), std::string::npos);
  EXPECT_EQ(s[2].metric, "energy_dram");
  // Unavailable sources read as NaN, never as 0, and idle power over none of them is NaN too.
  auto values = read_all(s);
  for (double v : values) EXPECT_TRUE(std::isnan(v));
  for (double w : idle_power(s, 0.01)) EXPECT_TRUE(std::isnan(w));
}

TEST(Energy, ReadsAFabricatedPackageCounter) {
  test::temp_dir dir;
  std::filesystem::create_directories(dir.file("intel-rapl:0"));
  std::ofstream(dir.file("intel-rapl:0/name")) << "package-0\n";
  std::ofstream(dir.file("intel-rapl:0/energy_uj")) << "100\n";
  auto s = open_energy_sources({}, "no GPU", dir.path());
  ASSERT_TRUE(s[1].read) << s[1].unavailable;
  std::ofstream(dir.file("intel-rapl:0/energy_uj")) << "2000100\n";
  EXPECT_NEAR(s[1].read(), 2.0, 1e-9);
  EXPECT_FALSE(s[2].read);  // no dram zone
}

TEST(Energy, ACounterThatNeverEndsIsNotReadOn) {
  // EMA_POWERCAP_ROOT may point anywhere: a counter file linked to /dev/zero is refused at once.
  test::temp_dir dir;
  std::filesystem::create_directories(dir.file("intel-rapl:0"));
  std::ofstream(dir.file("intel-rapl:0/name")) << "package-0\n";
  std::filesystem::create_symlink("/dev/zero", dir.file("intel-rapl:0/energy_uj"));
  auto s = open_energy_sources({}, "no GPU", dir.path());
  EXPECT_FALSE(s[1].read);
  EXPECT_NE(s[1].unavailable.find("holds no energy counter"), std::string::npos) << s[1].unavailable;
}

}  // namespace
}  // namespace ema
