// The repeated-runs tables: Table 3's statistics over every run and instance, speedup of the
// means, and efficiency and cost only where the processor count is known.
#include <gtest/gtest.h>

#include <map>

#include "report/analysis_tables.hpp"
#include "report/baseline.hpp"

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

TEST(AnalysisTables, AFamilyOfVariantsIsComparedWithItsOwnSeqAndOmp) {
  // rqa's variants come in families (exact-*, seed-*): exact-cuda against exact-seq, not seed-seq;
  // a variant without a family of its own falls back to `seq`.
  experiment_view v;
  v.points = {point("exact-seq", "seq", 1000, {10.0}), point("exact-omp", "omp", 1000, {2.0}, 0, "8"),
              point("exact-cuda", "cuda", 1000, {0.5}), point("seed-seq", "seq", 1000, {1.0}),
              point("seed-cuda", "cuda", 1000, {0.25}), point("seq", "seq", 1000, {4.0}), point("cuda-other", "cuda", 1000, {2.0})};
  std::map<std::string, std::decay_t<decltype(summarize_runs(v).front())>> by;
  for (const auto& r : summarize_runs(v)) by[r.variant] = r;
  EXPECT_DOUBLE_EQ(*by["exact-omp"].speedup_seq, 5.0);
  EXPECT_DOUBLE_EQ(*by["exact-omp"].efficiency, 5.0 / 8);
  EXPECT_DOUBLE_EQ(*by["exact-cuda"].speedup_seq, 20.0);
  EXPECT_DOUBLE_EQ(*by["exact-cuda"].speedup_omp, 4.0);
  EXPECT_DOUBLE_EQ(*by["seed-cuda"].speedup_seq, 4.0);
  EXPECT_FALSE(by["seed-cuda"].speedup_omp);  // no seed-omp, no omp
  EXPECT_DOUBLE_EQ(*by["cuda-other"].speedup_seq, 2.0);  // no cuda-seq: against seq
  EXPECT_EQ(baseline_for("exact-cuda", "seq", [](const std::string& n) { return n == "exact-seq"; }), "exact-seq");
  EXPECT_EQ(baseline_for("omp-blocked", "seq", [](const std::string&) { return false; }), "seq");
  EXPECT_EQ(family_of("seq"), "");
}

}  // namespace
}  // namespace ema
