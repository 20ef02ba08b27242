#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <thread>

#include "runner/isolate.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

child_outcome sh(const std::string& script, const std::string& input = "", double timeout = 10, const std::atomic<bool>* stop = nullptr) {
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

// Issue 11, item 4: a grandchild that leaves the process group (setsid) kept ema waiting on its
// pipes past the timeout, and outlived the point.
TEST(Isolate, WhatTheCommandStartsEndsWithIt) {
  test::temp_dir dir;
  const auto marker = dir.file("alive");
  auto start = std::chrono::steady_clock::now();
  auto r = sh("setsid sh -c 'echo $$ > " + marker + "; exec sleep 120' & sleep 0.3; exit 0", "", 3);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.5);
  EXPECT_TRUE(r.exited);
  EXPECT_FALSE(r.timed_out);
  std::ifstream f(marker);
  long pid = 0;
  ASSERT_TRUE(f >> pid);
  EXPECT_NE(kill(static_cast<pid_t>(pid), 0), 0) << "the detached grandchild " << pid << " outlived its point";
}

TEST(Isolate, TheTimeoutHoldsAgainstADetachedHolderOfThePipes) {
  test::temp_dir dir;
  const auto marker = dir.file("alive");
  auto start = std::chrono::steady_clock::now();
  auto r = sh("setsid sh -c 'echo $$ > " + marker + "; exec sleep 120' & sleep 60", "", 1);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 4.0);
  EXPECT_TRUE(r.timed_out);
  std::ifstream f(marker);
  long pid = 0;
  ASSERT_TRUE(f >> pid);
  EXPECT_NE(kill(static_cast<pid_t>(pid), 0), 0);
}

// Issue 11, item 3: a program's output was buffered without limit.
TEST(Isolate, EndlessOutputCostsNoMemory) {
  isolation how;
  how.timeout = 1;
  how.channel = answer_channel::stdout_;
  auto r = run_isolated({"/bin/sh", "-c", "echo 'ema-phase a 1'; cat /dev/zero"}, "", how);
  EXPECT_TRUE(r.timed_out);
  EXPECT_GT(r.output_bytes, std::size_t{16} << 20);
  EXPECT_EQ(r.answer, "ema-phase a 1\n");
  EXPECT_LE(r.stdout_tail.size(), 4096u);
}

TEST(Isolate, OutputPastItsBoundsStopsTheChild) {
  isolation how;
  how.timeout = 20;
  how.answer_limit = 1000;
  auto r = run_isolated({"/bin/sh", "-c", "head -c 100000 /dev/zero >&3; sleep 30"}, "", how);
  EXPECT_NE(r.output_problem.find("exceeded"), std::string::npos) << r.output_problem;
  EXPECT_FALSE(r.timed_out);
  EXPECT_LE(r.answer.size(), 1000u);

  how = isolation{};
  how.channel = answer_channel::stdout_;
  how.kept_limit = 1000;
  r = run_isolated({"/bin/sh", "-c", "while :; do echo 'ema-phase a 1'; done"}, "", how);
  EXPECT_NE(r.output_problem.find("more than"), std::string::npos) << r.output_problem;
  EXPECT_LE(r.answer.size(), 1000u);

  how = isolation{};
  how.channel = answer_channel::stdout_;
  r = run_isolated({"/bin/sh", "-c", "printf 'ema-phase '; head -c 10000 /dev/zero | tr '\\0' x; echo"}, "", how);
  EXPECT_NE(r.output_problem.find("longer than 4096 bytes"), std::string::npos) << r.output_problem;

  // Long lines that are not kept are only counted, and a kept line may end the output unterminated.
  r = run_isolated({"/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x; echo; printf 'ema-phase b 2'"}, "", how);
  EXPECT_TRUE(r.output_problem.empty()) << r.output_problem;
  EXPECT_EQ(r.answer, "ema-phase b 2\n");
}

TEST(Isolate, RunsInTheFolderItIsGiven) {
  test::temp_dir dir;
  isolation how;
  how.channel = answer_channel::stdout_;
  how.keep_prefix = "/";
  how.cwd = dir.path();
  auto r = run_isolated({"/bin/sh", "-c", "pwd"}, "", how);
  EXPECT_EQ(r.answer, std::filesystem::canonical(dir.path()).string() + "\n");
  how.cwd = dir.file("missing");
  r = run_isolated({"/bin/sh", "-c", "pwd"}, "", how);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.stderr_tail.find("cannot enter the working directory"), std::string::npos) << r.stderr_tail;
}

}  // namespace
}  // namespace ema
