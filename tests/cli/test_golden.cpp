// The golden test (issue 30): every command's output on a fixed database, byte for byte, so that
// reshaping the code (results as tagged values, layers, the graph family's folder) provably changes
// nothing a user sees. tests/golden/commands.txt names the commands, tests/golden/expected/ holds
// what each printed when it was last reviewed; EMA_UPDATE_GOLDEN=1 rewrites them.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

#include "support/ema.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;
const fs::path golden = fs::path(EMA_SOURCE_DIR) / "tests" / "golden";

struct golden_command {
  std::string name;
  std::vector<std::string> args;
};

std::vector<golden_command> commands() {
  std::vector<golden_command> out;
  std::ifstream f(golden / "commands.txt");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    golden_command c;
    words >> c.name;
    for (std::string w; words >> w;) c.args.push_back(w);
    out.push_back(std::move(c));
  }
  return out;
}

/// What a command showed: its exit code, then its output file or stdout, then stderr.
std::string outcome(const golden_command& c) {
  test::temp_dir dir;
  fs::copy_file(golden / "golden.db", dir.file("golden.db"));
  fs::permissions(dir.file("golden.db"), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);
  for (const auto& e : fs::directory_iterator(golden / "inputs")) fs::copy_file(e.path(), dir.file(e.path().filename()));
  auto args = c.args;
  bool to_file = false;
  for (auto& a : args)
    if (a == "{out}") a = "out", to_file = true;  // relative: the folder is a new one each time
  const auto r = test::run_ema(args, dir.path());
  std::string text = "exit " + std::to_string(r.exit_code) + "\n";
  text += to_file ? "--- file\n" + test::slurp(dir.file("out")) : "--- stdout\n" + r.out;
  if (!r.err.empty()) text += "--- stderr\n" + r.err;
  return text;
}

TEST(Golden, EveryCommandPrintsWhatItPrintedBefore) {
  const auto list = commands();
  ASSERT_GE(list.size(), 30u);
  const bool update = std::getenv("EMA_UPDATE_GOLDEN") != nullptr;
  for (const auto& c : list) {
    const auto got = outcome(c);
    const auto path = golden / "expected" / (c.name + ".txt");
    if (update) {
      std::ofstream(path, std::ios::binary) << got;
      continue;
    }
    const auto want = test::slurp(path);
    ASSERT_FALSE(want.empty()) << path << " is missing: run with EMA_UPDATE_GOLDEN=1 and review it";
    if (got == want) continue;
    // The first line that differs, to say where.
    std::istringstream a(want), b(got);
    std::string la, lb;
    int line = 0;
    while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
    ADD_FAILURE() << c.name << " (ema " << testing::PrintToString(c.args) << ") differs from " << path << " at line " << line + 1
                  << ":\n  expected: " << la << "\n  printed:  " << lb;
  }
}

}  // namespace
}  // namespace ema
