// What the machine did while a point ran (measure/host_load.hpp): /proc/stat parsed, the load of
// other processes computed from the counters, and the rule that calls a point disturbed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/host_load.hpp"
#include "measure/kernel_file.hpp"

namespace ema {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string();
  std::ofstream(path) << text;
  return path;
}

TEST(HostLoad, ReadsTheFirstLineOfProcStat) {
  const double tick = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  const auto path = write_file("stat", "cpu  100 20 30 400 50 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n");
  auto t = read_cpu_times(path);
  ASSERT_TRUE(t);
  EXPECT_NEAR(t->busy, (100 + 20 + 30 + 6 + 7) * tick, 1e-9);
  EXPECT_NEAR(t->idle, (400 + 50) * tick, 1e-9);
  EXPECT_NEAR(t->steal, 8 * tick, 1e-9);
  std::filesystem::remove(path);
  // An old kernel's four fields; a file that is not /proc/stat; none at all.
  const auto old = write_file("stat-old", "cpu 10 0 5 100\n");
  ASSERT_TRUE(read_cpu_times(old));
  EXPECT_EQ(read_cpu_times(old)->steal, 0);
  std::filesystem::remove(old);
  const auto bad = write_file("stat-bad", "intr 1 2 3\n");
  EXPECT_FALSE(read_cpu_times(bad));
  std::filesystem::remove(bad);
  EXPECT_FALSE(read_cpu_times("/nonexistent/stat"));
  const auto load = write_file("loadavg", "2.53 1.20 0.80 3/400 1234\n");
  EXPECT_DOUBLE_EQ(read_load_average(load).value(), 2.53);
  std::filesystem::remove(load);
}

TEST(KernelFile, TheFirstLineWithinABoundAndNothingThatIsNotARegularFile) {
  const auto ok = write_file("line", "cpu  1 2 3\nsecond\n");
  EXPECT_EQ(read_first_line(ok, 64).value(), "cpu  1 2 3");
  EXPECT_FALSE(read_first_line(ok, 5));  // no line ending within 5 bytes
  const auto last = write_file("last", "7");
  EXPECT_EQ(read_first_line(last, 64).value(), "7");
  std::filesystem::remove(ok);
  std::filesystem::remove(last);
  // A moved /proc (EMA_PROC_ROOT) may hold anything: a device that never ends, a FIFO with no writer
  // (opening it would wait), a folder.
  EXPECT_FALSE(read_first_line("/dev/zero", 64));
  const auto fifo = (std::filesystem::temp_directory_path() / ("fifo" + std::to_string(::getpid()))).string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(read_first_line(fifo, 64));
  EXPECT_FALSE(read_cpu_times(fifo));
  std::filesystem::remove(fifo);
  EXPECT_FALSE(read_first_line(std::filesystem::temp_directory_path(), 64));
  EXPECT_FALSE(read_first_line("/nonexistent/stat", 64));
}

TEST(HostLoad, OtherProcessesAreTheBusyTimeLessThePointsOwn) {
  cpu_times before{10, 100, 0}, after{10 + 3.0, 100 + 1.0, 0};  // 4 s of CPU time in 2 s of wall: 2 CPUs
  auto l = load_during(before, after, 2.0, 2.0, 2, 1.5);        // the point used 2 CPU seconds: 1 CPU
  ASSERT_TRUE(l);
  EXPECT_NEAR(l->own_cpus, 1.0, 1e-12);
  EXPECT_NEAR(l->others_cpus, 0.5, 1e-12);  // 3 busy seconds, 2 its own, over 2 s
  EXPECT_NEAR(l->steal, 0.0, 1e-12);
  // Too short to judge, and counters that went back.
  EXPECT_FALSE(load_during(before, after, 0.01, 0.01, 2, -1));
  EXPECT_FALSE(load_during(after, before, 2.0, 2.0, 2, -1));
  // Stored and read back.
  auto back = host_load::from_json(l->to_json());
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(back->others_cpus, l->others_cpus);
  EXPECT_EQ(back->cpus, 2);
  EXPECT_FALSE(host_load::from_json(nlohmann::json::object()));
  EXPECT_FALSE(host_load::from_json("busy"));
}

TEST(HostLoad, DisturbedWhenOthersTakeTheCpusThePointLeftFree) {
  host_load l;
  l.cpus = 2;
  l.own_cpus = 2;  // a parallel variant on both cores
  l.others_cpus = 0.6;
  EXPECT_NE(disturbance(l), "");
  l.others_cpus = 0.2;  // a shell, a terminal: quiet
  EXPECT_EQ(disturbance(l), "");
  l.cpus = 16;
  l.own_cpus = 1;  // a sequential variant on 16 cores beside one busy process: 15 free, 1 taken
  l.others_cpus = 1;
  EXPECT_EQ(disturbance(l), "");
  l.others_cpus = 9;  // beside a parallel build
  EXPECT_NE(disturbance(l), "");
  l.others_cpus = 0;
  l.steal = 0.06;  // a VM's usual steal: a few percent
  EXPECT_EQ(disturbance(l), "");
  l.steal = 0.12;  // a busy VM host
  EXPECT_NE(disturbance(l).find("stole 12%"), std::string::npos);
}

TEST(HostLoad, TheMeterReadsThisMachine) {
  host_load_meter meter;
  volatile double x = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(120);
  while (std::chrono::steady_clock::now() < until) x = x + 1;  // busy: this process's own CPU time
  if (!read_cpu_times()) GTEST_SKIP() << "no /proc/stat here";
  auto l = meter.finish(0.12, 0.12);
  ASSERT_TRUE(l);
  EXPECT_GT(l->cpus, 0);
  EXPECT_GE(l->others_cpus, 0);
  EXPECT_GE(l->steal, 0);
  EXPECT_LE(l->steal, 1);
}

}  // namespace
}  // namespace ema
