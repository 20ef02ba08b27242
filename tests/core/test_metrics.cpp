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

// Who records a metric decides where it goes: a user's program may not report a phase named as one
// ema measures around every run; the external table's phase columns and the report's charts follow
// the catalogue, not lists of names.
TEST(Metrics, SourcesAndChartsComeFromTheCatalogue) {
  EXPECT_EQ(find_metric("total").source, metric_source::run);
  EXPECT_EQ(find_metric("user").source, metric_source::run);
  EXPECT_EQ(find_metric("point_wall").source, metric_source::run);
  EXPECT_EQ(find_metric("kernel").source, metric_source::phase);
  EXPECT_EQ(find_metric("compress").source, metric_source::phase);  // not catalogued: a program's phase
  EXPECT_EQ(find_metric("energy_gpu").source, metric_source::meter);
  EXPECT_FALSE(find_metric("point_wall").charted);
  EXPECT_FALSE(find_metric("energy_cpu_above_idle").charted);
  EXPECT_TRUE(find_metric("compress").charted);
  EXPECT_EQ(run_metric_names(), "total, user, sys, host_peak_rss, device_peak or point_wall");
}

TEST(Metrics, NamesAreUnique) {
  std::set<std::string> names;
  for (const auto& m : metric_catalog()) EXPECT_TRUE(names.insert(m.name).second) << m.name;
  for (const char* required : {"total", "kernel", "h2d", "d2h", "alloc", "free", "host_peak_rss", "device_peak", "energy_gpu", "energy_cpu"})
    EXPECT_TRUE(names.count(required)) << required;
}

}  // namespace
}  // namespace ema
