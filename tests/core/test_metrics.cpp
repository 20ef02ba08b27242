#include <gtest/gtest.h>
#include <set>

#include "core/metrics.hpp"

namespace ema {
namespace {

TEST(Metrics, CatalogueGivesUnits) {
  EXPECT_STREQ(find_metric("total").unit, "s");
  EXPECT_STREQ(find_metric("host_peak_rss").unit, "B");
  EXPECT_STREQ(find_metric("energy_gpu").unit, "J");
  EXPECT_EQ(find_metric("stage2").kind, metric_kind::time);
  EXPECT_EQ(find_metric("profile_strip").kind, metric_kind::time);  // an uncatalogued phase is a time
}

TEST(Metrics, NamesAreUnique) {
  std::set<std::string> names;
  for (const auto& m : metric_catalog()) EXPECT_TRUE(names.insert(m.name).second) << m.name;
  for (const char* required : {"total", "kernel", "h2d", "d2h", "alloc", "free", "host_peak_rss", "device_peak", "energy_gpu", "energy_cpu"})
    EXPECT_TRUE(names.count(required)) << required;
}

}  // namespace
}  // namespace ema
