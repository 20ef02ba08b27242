// The repeated-runs tables: Table 3's statistics over every run and instance, speedup of the
// means, and efficiency and cost only where the processor count is known.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "core/registry.hpp"
#include "report/analysis_tables.hpp"

namespace ema {
namespace {

point_view point(const std::string& variant, const std::string& backend, std::uint64_t n, std::vector<double> totals, int instance = 0,
                 const char* processors = nullptr, const char* problem = "search") {
  point_view p;
  p.record.problem = problem;
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
  v.points = {point("seq", "seq", 1000, {8.0, 9.0}), point("seq", "seq", 1000, {10.0}, 1), point("omp", "omp", 1000, {2.0, 3.0, 1.0}, 0, "4"),
              point("cuda", "cuda", 1000, {0.5})};
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

/// A point as ema records it now: its algorithm and role among the notes.
point_view recorded(const char* problem, const char* variant, const char* backend, const char* algorithm, const char* role, double t,
                    const char* processors = nullptr) {
  auto p = point(variant, backend, 1000, {t}, 0, processors, problem);
  p.notes["algorithm"] = algorithm;
  p.notes["role"] = role;
  return p;
}

TEST(AnalysisTables, AVariantIsComparedWithItsOwnAlgorithmsSeqAndOmp) {
  // rqa has three algorithms (exact, microstates, motif): exact-cuda against exact-seq, not
  // microstates-seq; an algorithm without a variant on the baseline's back end falls back on the problem's
  // reference algorithm (exact); a program ema does not know, on the variant named `seq`. The
  // identities come from the points, so this holds in every build (with or without CUDA).
  experiment_view v;
  v.points = {recorded("rqa", "exact-seq", "seq", "exact", "ours", 10.0),
              recorded("rqa", "exact-omp", "omp", "exact", "ours", 2.0, "8"),
              recorded("rqa", "exact-cuda", "cuda", "exact", "ours", 0.5),
              recorded("rqa", "microstates-seq", "seq", "microstates", "source", 1.0),
              recorded("rqa", "microstates-cuda", "cuda", "microstates", "source", 0.25),
              point("seq", "seq", 1000, {4.0}, 0, nullptr, "rqa"),
              point("my-program", "cuda", 1000, {2.0}, 0, nullptr, "rqa")};
  std::map<std::string, std::decay_t<decltype(summarize_runs(v).front())>> by;
  for (const auto& r : summarize_runs(v)) by[r.variant] = r;
  EXPECT_DOUBLE_EQ(*by["exact-omp"].speedup_seq, 5.0);
  EXPECT_DOUBLE_EQ(*by["exact-omp"].efficiency, 5.0 / 8);
  EXPECT_DOUBLE_EQ(*by["exact-cuda"].speedup_seq, 20.0);
  EXPECT_DOUBLE_EQ(*by["exact-cuda"].speedup_omp, 4.0);
  EXPECT_DOUBLE_EQ(*by["microstates-cuda"].speedup_seq, 4.0);  // microstates-seq, its own algorithm's
  EXPECT_DOUBLE_EQ(*by["microstates-cuda"].speedup_omp, 8.0);  // no microstates-omp: the reference algorithm's exact-omp
  EXPECT_DOUBLE_EQ(*by["my-program"].speedup_seq, 2.0);        // not ema's: against the variant named seq
  EXPECT_FALSE(by["my-program"].speedup_omp);
}

TEST(AnalysisTables, GaussLuVariantsFallBackOnTheSourcesElimination) {
  experiment_view v;
  v.points = {recorded("gauss", "seq", "seq", "elimination", "source", 8.0), recorded("gauss", "omp", "omp", "elimination", "ours", 2.0, "4"),
              recorded("gauss", "omp-blocked", "omp", "lu", "ours", 1.0, "4"), recorded("gauss", "cuda", "cuda", "lu", "ours", 0.5),
              recorded("gauss", "cuda-kv1", "cuda", "elimination", "source", 1.0)};
  std::map<std::string, std::decay_t<decltype(summarize_runs(v).front())>> by;
  for (const auto& r : summarize_runs(v)) by[r.variant] = r;
  EXPECT_DOUBLE_EQ(*by["cuda"].speedup_seq, 16.0);     // no LU on one thread: the source's seq
  EXPECT_DOUBLE_EQ(*by["cuda"].speedup_omp, 2.0);      // LU on the GPU against LU in OpenMP
  EXPECT_DOUBLE_EQ(*by["cuda-kv1"].speedup_omp, 2.0);  // elimination against elimination
}

TEST(AnalysisTables, PointsStoredBeforeIdentitiesWereRecordedUseThisBuildsRegistry) {
  experiment_view v;
  v.points = {point("exact-seq", "seq", 1000, {10.0}, 0, nullptr, "rqa"), point("microstates-seq", "seq", 1000, {1.0}, 0, nullptr, "rqa"),
              point("exact-omp", "omp", 1000, {2.0}, 0, "8", "rqa")};
  std::map<std::string, std::decay_t<decltype(summarize_runs(v).front())>> by;
  for (const auto& r : summarize_runs(v)) by[r.variant] = r;
  if (lookup_variant("rqa", "exact-omp")) EXPECT_DOUBLE_EQ(*by["exact-omp"].speedup_seq, 5.0);
  EXPECT_DOUBLE_EQ(*by["microstates-seq"].speedup_seq, 1.0);  // its own
}

TEST(AnalysisTables, OneSlowRunDoesNotOwnTheSpeedupAndMarkdownRendersOnGitHub) {
  experiment_view v;
  v.points = {point("seq", "seq", 1000, {1.0, 1.0, 1.0, 1.0, 100.0}), point("omp", "omp", 1000, {0.5, 0.5, 0.5}, 0, "4")};
  std::map<std::string, std::decay_t<decltype(summarize_runs(v).front())>> by;
  for (const auto& r : summarize_runs(v)) by[r.variant] = r;
  EXPECT_DOUBLE_EQ(by["seq"].median, 1.0);
  EXPECT_DOUBLE_EQ(*by["omp"].speedup_seq, 2.0);  // of the medians: 1 / 0.5, not the mean's 20.8 / 0.5
  EXPECT_DOUBLE_EQ(*by["omp"].cost, 4 * 0.5);
  const auto md = render_analysis_tables(v, table_style::markdown);
  std::istringstream lines(md);
  int delimiter_rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| -", 0) != 0 && line.rfind("| :", 0) != 0) continue;
    ++delimiter_rows;
    std::size_t start = 1;
    while (start < line.size()) {
      const auto end = line.find('|', start);
      if (end == std::string::npos) break;
      EXPECT_NE(line.substr(start, end - start).find('-'), std::string::npos) << "a delimiter cell without a hyphen: " << line;
      start = end + 1;
    }
  }
  EXPECT_EQ(delimiter_rows, 1) << md;
}

}  // namespace
}  // namespace ema
