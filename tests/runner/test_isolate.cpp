#include <atomic>
#include <chrono>
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

// A kept worker (worker_session): one process answers request after request, each a frame, and
// the process is the same; a request past its timeout kills it, as run_isolated's would.
// The shell server answers each request with "<pid> <request>" in a frame (ASCII only: ${#}
// counts characters).
const char* echo_server = R"(while IFS= read -r len; do body=$(head -c "$len"); a="$$ $body"; printf '%s\n%s' "${#a}" "$a" >&3; )"
                          R"(case "$body" in sleep) sleep 60;; exit) exit 5;; junk) echo junk >&3;; esac; done)";

TEST(Isolate, AKeptWorkerAnswersRequestAfterRequestInOneProcess) {
  worker_session w({"/bin/sh", "-c", echo_server}, isolation{});
  ASSERT_TRUE(w.alive());
  auto a = w.exchange("first", 10);
  ASSERT_TRUE(a.answered) << a.stderr_tail << a.output_problem;
  const auto pid = a.answer.substr(0, a.answer.find(' '));
  EXPECT_EQ(a.answer, pid + " first");
  auto b = w.exchange("{\"second\": 2}", 10);
  ASSERT_TRUE(b.answered);
  EXPECT_EQ(b.answer, pid + " {\"second\": 2}");  // the same process
  EXPECT_GE(b.wall, 0.0);
  EXPECT_LT(b.wall, 5.0);
  EXPECT_EQ(w.requests(), 2);
  EXPECT_TRUE(w.alive());
  w.end();
  EXPECT_FALSE(w.alive());
}

TEST(Isolate, AKeptWorkerPastItsTimeoutIsKilledAndTheSessionEnds) {
  worker_session w({"/bin/sh", "-c", echo_server}, isolation{});
  const auto start = std::chrono::steady_clock::now();
  auto a = w.exchange("sleep", 10);  // answers, then sleeps before its next read
  ASSERT_TRUE(a.answered);
  auto b = w.exchange("next", 0.5);
  EXPECT_FALSE(b.answered);
  EXPECT_TRUE(b.timed_out);
  EXPECT_FALSE(w.alive());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 8.0);
}

TEST(Isolate, AKeptWorkerThatExitsBetweenRequestsReportsHowItEnded) {
  worker_session w({"/bin/sh", "-c", echo_server}, isolation{});
  ASSERT_TRUE(w.exchange("exit", 10).answered);  // answers, then exits 5
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(w.alive());          // seen before a request is sent: ema starts a fresh worker instead
  auto b = w.exchange("next", 10);  // written to a pipe no one reads: no SIGPIPE for ema
  EXPECT_FALSE(b.answered);
  EXPECT_TRUE(b.exited);
  EXPECT_EQ(b.exit_code, 5);
  EXPECT_FALSE(w.alive());
}

TEST(Isolate, AKeptWorkerThatWritesPastItsAnswerIsStopped) {
  worker_session w({"/bin/sh", "-c", echo_server}, isolation{});
  auto a = w.exchange("junk", 10);  // its frame, then bytes no request asked for
  auto b = a.answered ? w.exchange("next", 10) : a;
  EXPECT_FALSE(b.answered);
  EXPECT_FALSE(b.output_problem.empty());
  EXPECT_FALSE(w.alive());
  worker_session bad({"/bin/sh", "-c", "read -r len; echo 'not a frame' >&3; sleep 60"}, isolation{});
  auto c = bad.exchange("x", 10);
  EXPECT_FALSE(c.answered);
  EXPECT_NE(c.output_problem.find("does not start with its length"), std::string::npos) << c.output_problem;
}

TEST(Isolate, EndingAKeptWorkerThatIgnoresEofKillsIt) {
  worker_session w({"/bin/sh", "-c", "trap '' TERM; sleep 60"}, isolation{});
  const auto start = std::chrono::steady_clock::now();
  w.end(0.3);
  EXPECT_FALSE(w.alive());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 6.0);
  EXPECT_EQ(frame("abc"), "3\nabc");
}

}  // namespace
}  // namespace ema
