// The machine description's caches (measure/machine.hpp), read from a sysfs tree written here, and
// from this machine's own where it has one.
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>

#include "measure/machine.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

void write_index(const std::filesystem::path& dir, int i, const char* level, const char* type, const char* size) {
  const auto d = dir / fmt::format("index{}", i);
  std::filesystem::create_directories(d);
  std::ofstream(d / "level") << level << "\n";
  std::ofstream(d / "type") << type << "\n";
  std::ofstream(d / "size") << size << "\n";
  std::ofstream(d / "shared_cpu_list") << "0-1\n";
}

TEST(Machine, CachesAreReadFromSysfsByLevel) {
  test::temp_dir dir;
  const std::filesystem::path root = dir.path();
  write_index(root, 3, "3", "Unified", "491520K");
  write_index(root, 0, "1", "Data", "48K");
  write_index(root, 1, "1", "Instruction", "64K");
  write_index(root, 2, "2", "Unified", "2M");
  write_index(root, 4, "x", "Unified", "1K");  // unreadable level: left out
  const auto c = read_caches(root.string());
  ASSERT_EQ(c.size(), 4u) << c.dump();
  EXPECT_EQ(c[0]["level"], 1);
  EXPECT_EQ(c[0]["type"], "Data");
  EXPECT_EQ(c[0]["size_bytes"], 48 * 1024);
  EXPECT_EQ(c[2]["size_bytes"], 2 * 1024 * 1024);
  EXPECT_EQ(c[3]["size_bytes"], 491520ull * 1024);
  EXPECT_TRUE(read_caches((root / "absent").string()).empty());
}

TEST(Machine, TheDescriptionCarriesTheHostsCaches) {
  const auto m = describe_machine();
  ASSERT_TRUE(m["host"].contains("caches"));
  if (std::filesystem::exists("/sys/devices/system/cpu/cpu0/cache/index0")) EXPECT_FALSE(m["host"]["caches"].empty());
}

}  // namespace
}  // namespace ema
