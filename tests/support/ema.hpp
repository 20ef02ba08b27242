// Running the `ema` command from a test (EMA_EXE: the binary under test, defined for every CPU
// test binary), and reading back what it wrote.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace ema::test {

inline process_result run_ema(std::vector<std::string> args, const std::string& cwd = "") {
  args.insert(args.begin(), EMA_EXE);
  return run_process(args, "", cwd);
}

/// A file's bytes ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace ema::test
