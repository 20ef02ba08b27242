// sort's test inputs shared by the CPU and GPU tests.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.hpp"

namespace ema::test {

/// Keys with every sign and magnitude a file may hold: negatives, both zeros, the extremes of each
/// type, repeats; shuffled by a fixed LCG so no variant sees them in order.
inline std::string signed_keys_file(const test::temp_dir& dir, const char* type) {
  const std::string t = type;
  std::vector<std::string> k;
  if (t == "f32")
    k = {"-3.4e38", "-1e30", "-3.5", "-1", "-1e-38", "-0", "0", "-0", "0", "1e-45", "1e-38", "0.5", "1", "3.5", "1e30", "3.4e38"};
  else if (t == "u64")
    k = {"0", "1", "255", "256", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615"};
  else
    k = {"0", "1", "255", "256", "65535", "65536", "2147483647", "2147483648", "4294967295"};
  std::vector<std::string> all;
  for (int r = 0; r < 300; ++r) all.insert(all.end(), k.begin(), k.end());
  std::uint64_t x = 12345;
  for (std::size_t i = all.size(); i > 1; --i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(all[i - 1], all[(x >> 33) % i]);
  }
  const auto path = dir.file(std::string("signed-") + type + ".txt");
  std::ofstream out(path);
  for (const auto& s : all) out << s << "\n";
  return path;
}

}  // namespace ema::test
