// RAPL read from a fabricated powercap tree: summing sockets, the DRAM subzone, wrap-around, and
// the reasons given when nothing can be read.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "measure/rapl.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text << "\n";
}

struct fake_powercap {
  test::temp_dir dir;
  fake_powercap() {
    write(dir.file("intel-rapl:0/name"), "package-0");
    write(dir.file("intel-rapl:0/energy_uj"), "1000000");
    write(dir.file("intel-rapl:0/max_energy_range_uj"), "10000000");
    write(dir.file("intel-rapl:1/name"), "package-1");
    write(dir.file("intel-rapl:1/energy_uj"), "5000000");
    write(dir.file("intel-rapl:1/max_energy_range_uj"), "10000000");
    write(dir.file("intel-rapl:0:0/name"), "dram");
    write(dir.file("intel-rapl:0:0/energy_uj"), "200");
    write(dir.file("intel-rapl:0:0/max_energy_range_uj"), "1000");
  }
};

TEST(Rapl, SumsPackagesAcrossSockets) {
  fake_powercap f;
  auto d = rapl_domain::open("package", f.dir.path());
  ASSERT_TRUE(d.available()) << d.unavailable_reason();
  EXPECT_DOUBLE_EQ(d.joules(), 0.0);
  write(f.dir.file("intel-rapl:0/energy_uj"), "3000000");  // +2 J
  write(f.dir.file("intel-rapl:1/energy_uj"), "5500000");  // +0.5 J
  EXPECT_NEAR(d.joules(), 2.5, 1e-9);
}

TEST(Rapl, HandlesCounterWrapAround) {
  fake_powercap f;
  auto d = rapl_domain::open("dram", f.dir.path());
  ASSERT_TRUE(d.available());
  write(f.dir.file("intel-rapl:0:0/energy_uj"), "900");  // +700 uJ
  EXPECT_NEAR(d.joules(), 700e-6, 1e-12);
  write(f.dir.file("intel-rapl:0:0/energy_uj"), "100");  // wrapped at 1000: +200 uJ
  EXPECT_NEAR(d.joules(), 900e-6, 1e-12);
}

TEST(Rapl, UnavailableSaysWhy) {
  EXPECT_NE(rapl_domain::open("package", "/nonexistent/powercap").unavailable_reason().find("does not exist"), std::string::npos);
  test::temp_dir empty;
  auto d = rapl_domain::open("dram", empty.path());
  EXPECT_FALSE(d.available());
  EXPECT_NE(d.unavailable_reason().find("no RAPL 'dram' zone"), std::string::npos);
}

}  // namespace
}  // namespace ema
