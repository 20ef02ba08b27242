// Real measurements as test data (tests/analysis/real/: series measured on the H100 machine and on
// the 2-core development VM, each with the class its algorithm has): whatever `ema fit` concludes
// from them, a firm verdict must name the right class. Real series are where the synthetic set's
// 99% once turned into wrong answers printed as the answer (issue 14).
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

#include "analysis/analyze.hpp"
#include "analysis/series_csv.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;

/// The class a file's comment names: "... The algorithm's class: n^3." -> 3.
double class_exponent(const fs::path& file) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("class: n");
    if (at == std::string::npos) continue;
    const auto rest = line.substr(at + 8);
    return rest.rfind('^', 0) == 0 ? std::stod(rest.substr(1)) : 1.0;
  }
  return -1;
}

TEST(FitRealData, AFirmVerdictNamesTheAlgorithmsClass) {
  int files = 0, firm = 0;
  std::string summary;
  for (const auto& entry : fs::directory_iterator(EMA_REAL_DIR)) {
    if (entry.path().extension() != ".csv") continue;
    ++files;
    const double want = class_exponent(entry.path());
    ASSERT_GT(want, 0) << entry.path() << " names no class";
    const auto data = fit::read_series_csv(entry.path().string());
    const auto a = fit::analyze(data);
    const auto theta = a.groups.best.theta();
    const bool right = theta.n == want && theta.log == 0 && !theta.exp_base;
    summary += fmt::format("{:<40} {:<22} {}\n", entry.path().filename().string(), theta.text(), fit::to_string(a.verdict.level));
    if (a.verdict.level == fit::verdict_level::firm) {
      ++firm;
      EXPECT_TRUE(right) << entry.path().filename() << ": firm " << theta.text() << ", but the algorithm is Θ(n^" << want << ")";
    }
  }
  std::printf("%s", summary.c_str());
  EXPECT_GE(files, 10);
}

}  // namespace
}  // namespace ema
