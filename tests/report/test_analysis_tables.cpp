// The repeated-runs tables: Table 3's statistics over every run and instance, speedup of the
// means, and efficiency and cost only where the processor count is known.
#include <gtest/gtest.h>

#include "report/analysis_tables.hpp"

namespace ema {
namespace {

point_view point(const std::string& variant, const std::string& backend, std::uint64_t n, std::vector<double> totals,
                 int instance = 0, const char* processors = nullptr) {
  point_view p;
  p.record.problem = "search";
  p.record.variant = variant;
  p.record.backend = backend;
  p.record.n = n;
  p.record.instance = instance;
  p.record.params_json = "{}";
  p.record.status = point_status::ok;
  p.notes = nlohmann::json::object();
  if (processors) p.notes["processors"] = processors;
  p.metrics["total"] = {"s", summarize(totals), totals};
  return p;
}

TEST(AnalysisTables, StatisticsOverRunsAndInstancesWithSpeedupEfficiencyAndCost) {
  experiment_view v;
  v.points = {point("seq", "seq", 1000, {8.0, 9.0}), point("seq", "seq", 1000, {10.0}, 1),
              point("omp", "omp", 1000, {2.0, 3.0, 1.0}, 0, "4"), point("cuda", "cuda", 1000, {0.5})};
  auto failed = point("omp", "omp", 2000, {1.0});
  failed.record.status = point_status::crashed;
  v.points.push_back(failed);
  const auto rows = summarize_runs(v);
  ASSERT_EQ(rows.size(), 3u);  // the crashed point makes no row
  EXPECT_EQ(rows[0].variant, "seq");
  EXPECT_EQ(rows[0].runs, 3);
  EXPECT_EQ(rows[0].points, 2);
  EXPECT_DOUBLE_EQ(rows[0].mean, 9.0);
  EXPECT_DOUBLE_EQ(rows[0].min, 8.0);
  EXPECT_DOUBLE_EQ(rows[0].max, 10.0);
  EXPECT_DOUBLE_EQ(rows[0].stddev, 1.0);
  EXPECT_DOUBLE_EQ(*rows[0].processors, 1.0);
  const auto& omp = rows[1];
  EXPECT_EQ(omp.variant, "omp");
  EXPECT_DOUBLE_EQ(*omp.speedup_seq, 4.5);  // 9 / 2
  EXPECT_DOUBLE_EQ(*omp.processors, 4);
  EXPECT_DOUBLE_EQ(*omp.efficiency, 4.5 / 4);
  EXPECT_DOUBLE_EQ(*omp.cost, 8.0);  // 4 processors x 2 s
  const auto& cuda = rows[2];
  EXPECT_DOUBLE_EQ(*cuda.speedup_seq, 18);
  EXPECT_DOUBLE_EQ(*cuda.speedup_omp, 4);
  EXPECT_FALSE(cuda.processors);  // no processor count: no efficiency, no cost
  EXPECT_FALSE(cuda.efficiency);
  const auto text = render_analysis_tables(v, table_style::text);
  EXPECT_NE(text.find("3 (2 inputs)"), std::string::npos) << text;
  EXPECT_NE(text.find("4.50x"), std::string::npos) << text;
}

}  // namespace
}  // namespace ema
