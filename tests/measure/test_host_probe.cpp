#include <gtest/gtest.h>

#include "measure/host_compute.hpp"
#include "measure/host_probe.hpp"
#include "measure/machine.hpp"

namespace ema {
namespace {

TEST(HostProbe, ReadBandwidthIsPlausible) {
  const double one = host_read_bandwidth(std::size_t{32} << 20, 1, 3);
  EXPECT_GT(one, 1e8);   // over 0.1 GB/s
  EXPECT_LT(one, 1e12);  // under 1 TB/s for one thread
  const double all = host_read_bandwidth(std::size_t{32} << 20, openmp_threads(), 3);
  EXPECT_GT(all, 1e8);
}

TEST(HostProbe, FmaThroughputIsPlausibleAndNamesItsKernel) {
  for (const bool f64 : {false, true}) {
    const auto one = host_fma_throughput(f64, 1);
    EXPECT_GT(one.flops, 1e8);   // over 0.1 GFLOP/s
    EXPECT_LT(one.flops, 1e13);  // under 10 TFLOP/s for one core
    EXPECT_NE(one.how.find("1 thread"), std::string::npos) << one.how;
    EXPECT_NE(one.how.find("chains"), std::string::npos) << one.how;
  }
}

TEST(Machine, DescribesHostAndGpus) {
  auto m = describe_machine();
  EXPECT_GT(m["host"]["logical_cores"].get<int>(), 0);
  EXPECT_GT(m["host"]["memory_bytes"].get<double>(), 0);
  EXPECT_FALSE(m["host"]["cpu_model"].get<std::string>().empty());
  EXPECT_TRUE(m["gpus"].is_array());
  if (m["gpus"].empty()) EXPECT_FALSE(m["gpus_unavailable"].get<std::string>().empty());
  EXPECT_FALSE(machine_key(m).empty());
}

}  // namespace
}  // namespace ema
