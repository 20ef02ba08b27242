// The energy window meters the variant, not its verifier: a fabricated package counter (a powercap
// tree under EMA_POWERCAP_ROOT, advanced by a thread at a constant power) and the `fault` problem's
// `busy` variant, whose check is made ten times slower than its run. The energy per run must be
// the power times the run's time, not times the run and its check; and the window's last output is
// still checked (a variant that goes wrong in the window is recorded as unverified).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <thread>

#include "runner/worker.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

constexpr double watts = 50;

/// A package zone whose counter advances at `watts` while the object lives.
class fake_package {
 public:
  fake_package() {
    std::filesystem::create_directories(dir_.file("intel-rapl:0"));
    std::ofstream(dir_.file("intel-rapl:0/name")) << "package-0\n";
    std::ofstream(dir_.file("intel-rapl:0/max_energy_range_uj")) << "1000000000000000\n";
    write(0);
    setenv("EMA_POWERCAP_ROOT", dir_.path().c_str(), 1);
    ticker_ = std::thread([this] {
      const auto start = std::chrono::steady_clock::now();
      while (!stop_) {
        std::this_thread::sleep_for(std::chrono::microseconds(500));
        write(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * watts * 1e6);
      }
    });
  }
  ~fake_package() {
    stop_ = true;
    ticker_.join();
    unsetenv("EMA_POWERCAP_ROOT");
  }

 private:
  void write(double uj) {
    const auto tmp = dir_.file("intel-rapl:0/energy_uj.tmp");
    std::ofstream(tmp) << static_cast<unsigned long long>(uj) << "\n";
    std::filesystem::rename(tmp, dir_.file("intel-rapl:0/energy_uj"));  // whole, never half written
  }
  test::temp_dir dir_;
  std::atomic<bool> stop_{false};
  std::thread ticker_;
};

nlohmann::json spec(const char* variant, std::uint64_t n, std::uint64_t check_us, int reps = 3) {
  return {{"problem", "fault"},
          {"variant", variant},
          {"n", n},
          {"params", {{"mode", "a"}, {"k", "1"}, {"check_us", std::to_string(check_us)}}},
          {"seed", 1},
          {"repetitions", {{"fixed", reps}, {"warmup", 1}}},
          {"energy", {{"enabled", true}, {"window", 0.3}}}};
}

TEST(EnergyWindow, MetersTheRunsAndNotTheirChecks) {
  fake_package meter;
  // A run of 2 ms, a check of 20 ms: with the checks in the window a run would cost 11 times more.
  const auto answer = run_point(spec("busy", 2000, 20000));
  ASSERT_EQ(answer.value("status", ""), "ok") << answer.dump();
  ASSERT_TRUE(answer["samples"].contains("energy_cpu")) << answer.dump();
  const double per_run = answer["samples"]["energy_cpu"][0].get<double>();
  EXPECT_GT(per_run, watts * 0.0015) << answer.dump();
  EXPECT_LT(per_run, watts * 0.006) << "the window metered the checks: " << answer.dump();
  const double span = answer["notes"]["energy_window_s"].get<double>();
  const int reps = answer["notes"]["energy_window_reps"].get<int>();
  EXPECT_GE(span, 0.3);
  EXPECT_NEAR(per_run * reps / span, watts, 0.15 * watts);  // the meter's mean power over the window
  EXPECT_EQ(answer["samples"]["total"].size(), 3u);          // the timed runs, each checked, apart
}

TEST(EnergyWindow, TheWindowsLastOutputIsChecked) {
  fake_package meter;
  // Right for the warm-up and the two timed runs, then wrong: only the window's runs are wrong.
  const auto answer = run_point(spec("flaky", 8, 0, 2));
  EXPECT_EQ(answer.value("status", ""), "unverified") << answer.dump();
  EXPECT_EQ(answer["samples"]["total"].size(), 2u) << "the timed runs passed; the window's last output was caught";
}

}  // namespace
}  // namespace ema
