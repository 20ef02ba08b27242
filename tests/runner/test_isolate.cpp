#include <atomic>
#include <csignal>
#include <gtest/gtest.h>
#include <thread>

#include "runner/isolate.hpp"

namespace ema {
namespace {

child_outcome sh(const std::string& script, const std::string& input = "", double timeout = 10,
                 const std::atomic<bool>* stop = nullptr) {
  return run_isolated({"/bin/sh", "-c", script}, input, timeout, stop);
}

TEST(Isolate, AnswerComesOnFd3AndInputOnStdin) {
  auto r = sh("cat >&3; echo note >&2", "{\"hello\":1}");
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.answer, "{\"hello\":1}");
  EXPECT_EQ(r.stderr_tail, "note\n");
  EXPECT_GT(r.max_rss_kib, 0);
}

TEST(Isolate, ExitCodeIsKept) {
  auto r = sh("exit 7");
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 7);
}

TEST(Isolate, SignalIsReported) {
  auto r = sh("kill -SEGV $$");
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(describe_signal(r.signal).find("Segmentation fault"), std::string::npos);
}

TEST(Isolate, TimeoutKillsTheWholeGroup) {
  auto start = std::chrono::steady_clock::now();
  auto r = sh("sleep 30 & sleep 30", "", 0.5);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exited);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

TEST(Isolate, StopFlagInterrupts) {
  std::atomic<bool> stop{false};
  std::thread raiser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  auto r = sh("sleep 30", "", 60, &stop);
  raiser.join();
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(r.timed_out);
}

TEST(Isolate, LongStderrKeepsItsTail) {
  auto r = sh("i=0; while [ $i -lt 3000 ]; do echo line$i >&2; i=$((i+1)); done; echo last >&2");
  EXPECT_LE(r.stderr_tail.size(), 4096u);
  EXPECT_NE(r.stderr_tail.find("last"), std::string::npos);
}

TEST(Isolate, MissingExecutableExits127) {
  auto r = run_isolated({"/nonexistent/program"}, "", 5);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.stderr_tail.find("cannot execute"), std::string::npos);
}

}  // namespace
}  // namespace ema
