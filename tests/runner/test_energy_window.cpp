// The energy window meters the variant, not its verifier: a fabricated package counter (a powercap
// tree under EMA_POWERCAP_ROOT, advanced by a thread at a constant power) and the `fault` problem's
// `busy` variant, whose check is made ten times slower than its run. The energy per run must be
// the power times the run's time, not times the run and its check; and the window's last output is
// still checked (a variant that goes wrong in the window is recorded as unverified).
#include <gtest/gtest.h>

#include "runner/worker.hpp"
#include "support/fake_powercap.hpp"

namespace ema {
namespace {

constexpr double watts = 50;

point_spec spec(const char* variant, std::uint64_t n, std::uint64_t check_us, int reps = 3) {
  point_spec s;
  s.problem = "fault";
  s.variant = variant;
  s.n = n;
  s.params = {{"mode", "a"}, {"k", "1"}, {"check_us", std::to_string(check_us)}};
  s.seed = 1;
  s.repetitions.fixed = reps;
  s.repetitions.warmup = 1;
  s.energy.window = 0.3;
  return s;
}

TEST(EnergyWindow, MetersTheRunsAndNotTheirChecks) {
  test::fake_package meter(watts);
  // A run of 2 ms, a check of 20 ms: with the checks in the window a run would cost 11 times more.
  const auto answer = run_point(spec("busy", 2000, 20000));
  const auto shown = to_json(answer).dump();
  ASSERT_EQ(answer.status, "ok") << shown;
  ASSERT_TRUE(answer.samples.count("energy_cpu")) << shown;
  const double per_run = answer.samples.at("energy_cpu")[0];
  EXPECT_GT(per_run, watts * 0.0015) << shown;
  EXPECT_LT(per_run, watts * 0.006) << "the window metered the checks: " << shown;
  const double span = answer.notes["energy_window_s"].get<double>();
  const int reps = answer.notes["energy_window_reps"].get<int>();
  EXPECT_GE(span, 0.3);
  EXPECT_NEAR(per_run * reps / span, watts, 0.15 * watts);  // the meter's mean power over the window
  EXPECT_EQ(answer.samples.at("total").size(), 3u);         // the timed runs, each checked, apart
}

TEST(EnergyWindow, TheWindowsLastOutputIsChecked) {
  test::fake_package meter(watts);
  // Right for the warm-up and the two timed runs, then wrong: only the window's runs are wrong.
  const auto answer = run_point(spec("flaky", 8, 0, 2));
  EXPECT_EQ(answer.status, "unverified") << to_json(answer).dump();
  EXPECT_EQ(answer.samples.at("total").size(), 2u) << "the timed runs passed; the window's last output was caught";
}

}  // namespace
}  // namespace ema
