// Results of other benchmark tools (inputs/tool_results.hpp), read from small files written to
// each tool's documented JSON schema (tests/inputs/tools/): Google Benchmark's
// --benchmark_format=json, nvbench's --json (file version 1) and hyperfine's --export-json.
#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <gtest/gtest.h>
#include <string>

#include "analysis/analyze.hpp"
#include "inputs/tool_results.hpp"
#include "core/errors.hpp"

namespace ema {
namespace {

std::string file(const char* name) { return std::string(EMA_TOOLS_DIR) + "/" + name; }

const tool_series& named(const tool_results& r, const std::string& benchmark) {
  auto it = std::find_if(r.series.begin(), r.series.end(), [&](const tool_series& s) { return s.benchmark == benchmark; });
  if (it == r.series.end()) throw std::runtime_error("no series " + benchmark);
  return *it;
}

bool mentions(const std::vector<std::string>& notes, const std::string& what) {
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(what) != std::string::npos; });
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

tool_results parse(result_tool t, const char* text, const std::string& size = "", const std::string& metric = "") {
  return parse_tool_results(t, nlohmann::json::parse(text), "test.json", size, metric);
}

TEST(GoogleBenchmark, RepetitionsAreSamplesAndOtherArgumentsParameters) {
  const auto r = read_tool_results(result_tool::gbench, file("gbench.json"), "", "");
  EXPECT_EQ(r.metric, "real_time");
  ASSERT_EQ(r.series.size(), 2u);
  const auto& scan = named(r, "BM_Scan");
  EXPECT_EQ(scan.params, R"({"arg1":"8"})");
  ASSERT_EQ(scan.points.size(), 8u);
  EXPECT_EQ(scan.points.front().n, 1024);
  EXPECT_EQ(scan.points.back().n, 131072);
  for (const auto& p : scan.points) EXPECT_EQ(p.samples.size(), 3u) << "aggregates of iterated runs are not samples";
  EXPECT_NEAR(scan.points.front().samples.front(), (0.5 * 1024 + 400) * 1e-9, 1e-12);  // ns read as seconds
  EXPECT_EQ(scan.size, "arg0");
  EXPECT_TRUE(scan.notes.empty()) << "its aggregates are left out: it has its repetitions";
  EXPECT_TRUE(mentions(r.notes, "reported an error"));
  EXPECT_TRUE(mentions(r.notes, "BigO"));
}

TEST(GoogleBenchmark, AggregatesOnlyGiveTheMedianAndTheNoise) {
  const auto r = read_tool_results(result_tool::gbench, file("gbench.json"), "n", "");
  const auto& sort = named(r, "BM_Sort");
  EXPECT_EQ(sort.params, R"({"threads":"2"})");
  ASSERT_EQ(sort.points.size(), 8u);
  const auto& p = sort.points.front();
  ASSERT_EQ(p.samples.size(), 1u);
  const double mean = 0.02 * 1024 * 10 + 50;
  EXPECT_NEAR(p.samples[0], mean * 0.998 * 1e-6, 1e-12);  // the median aggregate, us read as seconds
  EXPECT_NEAR(p.rse, 0.02 / std::sqrt(5.0), 1e-9);        // stddev / mean / √repetitions
  EXPECT_TRUE(mentions(sort.notes, "aggregates only"));
  EXPECT_EQ(sort.size, "n");
  EXPECT_EQ(r.series.size(), 1u) << "BM_Scan has no argument n";
  EXPECT_TRUE(mentions(r.notes, "1 benchmark family without the argument 'n' left out: BM_Scan"));
}

TEST(GoogleBenchmark, FitsTheScanAsLinear) {
  const auto r = read_tool_results(result_tool::gbench, file("gbench.json"), "", "");
  fit::series s;
  for (const auto& p : named(r, "BM_Scan").points)
    for (double v : p.samples) s.add(p.n, v);
  const auto a = fit::analyze(s);
  EXPECT_EQ(a.groups.best.theta().text(), "Θ(n)");
}

TEST(GoogleBenchmark, SizeAndMetricChoicesAndTheirErrors) {
  const auto cpu = read_tool_results(result_tool::gbench, file("gbench.json"), "", "cpu_time");
  EXPECT_EQ(cpu.metric, "cpu_time");
  EXPECT_NEAR(named(cpu, "BM_Scan").points.front().samples.front(), (0.5 * 1024 + 400) * 1.01e-9, 1e-12);
  EXPECT_NE(error_of([] { read_tool_results(result_tool::gbench, file("gbench.json"), "", "bytes"); }).find("real_time and cpu_time"),
            std::string::npos);
  EXPECT_NE(
      error_of([] { read_tool_results(result_tool::gbench, file("gbench.json"), "m", ""); }).find("has no argument 'm' (its arguments: arg0, arg1)"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              parse(result_tool::gbench, R"({"benchmarks":[{"name":"BM_X","run_type":"iteration","real_time":1}]})");
            }).find("no argument to read n from"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse(result_tool::gbench, R"({"benchmarks":[{"name":"BM_X/-4","real_time":1}]})"); }).find("not a number of at least 1"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse(result_tool::gbench, R"({"benchmarks":[{"name":"BM_X/4","real_time":1,"time_unit":"ps"}]})");
            }).find("unknown time_unit 'ps'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse(result_tool::gbench, R"({"results":[]})"); }).find("not Google Benchmark JSON"), std::string::npos);
  EXPECT_NE(error_of([] { parse(result_tool::gbench, R"({"benchmarks":[]})"); }).find("holds no result"), std::string::npos);
}

TEST(NvBench, TheOneVaryingInt64AxisIsN) {
  const auto r = read_tool_results(result_tool::nvbench, file("nvbench.json"), "", "");
  EXPECT_EQ(r.series.at(0).size, "Elements");
  EXPECT_EQ(r.metric, "nv/cold/time/gpu/mean");
  ASSERT_EQ(r.series.size(), 2u);  // T = F32 and T = F64
  EXPECT_EQ(r.series[0].benchmark, "scan");
  EXPECT_EQ(r.series[0].params, R"({"T":"F32"})");
  EXPECT_EQ(r.series[1].params, R"({"T":"F64"})");
  ASSERT_EQ(r.series[1].points.size(), 8u) << "the skipped state is left out";
  const auto& p = r.series[0].points.front();
  EXPECT_EQ(p.n, 1024);
  EXPECT_NEAR(p.samples.at(0), 4.0 * 1024 * 2 / 2.0e12 + 3e-6, 1e-12);
  EXPECT_NEAR(p.rse, 0.004 / 20, 1e-12);  // relative stdev over √400 samples
  EXPECT_TRUE(mentions(r.notes, "skipped"));
}

TEST(NvBench, MetricsAreTagsWithAliases) {
  const auto cpu = read_tool_results(result_tool::nvbench, file("nvbench.json"), "Elements", "cpu");
  EXPECT_EQ(cpu.metric, "nv/cold/time/cpu/mean");
  EXPECT_NEAR(cpu.series[0].points[0].samples[0], 4.0 * 1024 * 2 / 2.0e12 + 3e-6 + 5e-6, 1e-12);
  const auto batch = read_tool_results(result_tool::nvbench, file("nvbench.json"), "", "nv/batch/time/gpu/mean");
  EXPECT_EQ(batch.series[0].points.size(), 8u);
  EXPECT_NE(error_of([] {
              read_tool_results(result_tool::nvbench, file("nvbench.json"), "", "nv/cold/bw/global/bytes_per_second");
            }).find("no state has the summary"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_tool_results(result_tool::nvbench, file("nvbench.json"), "Blocks", ""); }).find("has no axis 'Blocks'"),
            std::string::npos);
  // Two varying int64 axes: the reader asks which one is n.
  const char* two = R"({"benchmarks":[{"name":"b","states":[
      {"axis_values":[{"name":"N","type":"int64","value":"8"},{"name":"K","type":"int64","value":"1"}],"summaries":[]},
      {"axis_values":[{"name":"N","type":"int64","value":"16"},{"name":"K","type":"int64","value":"2"}],"summaries":[]}]}]})";
  EXPECT_NE(error_of([&] { parse(result_tool::nvbench, two); }).find("2 int64 axes that vary (K, N); name the one that is n with --size"),
            std::string::npos);
  // The file version before 1.0 kept summaries in an object.
  const char* old = R"({"benchmarks":[{"name":"b","states":[{"axis_values":[{"name":"N","type":"int64","value":8}],"summaries":{}}]}]})";
  EXPECT_NE(error_of([&] { parse(result_tool::nvbench, old, "N"); }).find("before file version 1"), std::string::npos);
}

TEST(Hyperfine, TheParameterIsNAndTheCommandATemplate) {
  const auto r = read_tool_results(result_tool::hyperfine, file("hyperfine.json"), "", "");
  EXPECT_EQ(r.series.at(0).size, "n");
  EXPECT_EQ(r.metric, "time");
  ASSERT_EQ(r.series.size(), 1u) << "the commands differ only in n";
  const auto& s = r.series[0];
  EXPECT_EQ(s.benchmark, "./isort {n} --seed 7");
  ASSERT_EQ(s.points.size(), 8u);
  EXPECT_EQ(s.points[0].samples.size(), 5u);
  fit::series data;
  for (const auto& p : s.points)
    for (double v : p.samples) data.add(p.n, v);
  EXPECT_EQ(fit::analyze(data).groups.best.theta().text(), "Θ(n²)");
  const auto user = read_tool_results(result_tool::hyperfine, file("hyperfine.json"), "n", "user");
  EXPECT_EQ(user.series[0].points[0].samples.size(), 1u);
  EXPECT_TRUE(mentions(user.notes, "only the mean of user"));
}

TEST(Hyperfine, ANumberInsideAWordIsTheScannedParameter) {
  // `hyperfine -P n 1000 3000 -D 1000 'sort -n nums_{n}.txt'` and `-L n 8,16,32 'gzip -k input-{n}.bin'`: the
  // value inside a file name is n, and each command is one series, not one per size.
  std::string doc = R"({"results":[)";
  for (const char* n : {"1000", "2000", "3000"})
    doc += fmt::format(R"({{"command":"sort -n nums_{0}.txt","times":[0.{0}],"parameters":{{"n":"{0}"}}}},)", n);
  for (const char* n : {"8", "16", "32"})
    doc += fmt::format(R"({{"command":"gzip -k input-{0}.bin -c","times":[0.{0}],"parameters":{{"n":"{0}"}}}},)", n);
  // A number that only contains the value (prog2 at n = 2) stays as it is: the whole word wins.
  for (const char* n : {"2", "3", "4"}) doc += fmt::format(R"({{"command":"./prog2 {0}","times":[0.{0}],"parameters":{{"n":"{0}"}}}},)", n);
  doc.back() = ']';
  doc += "}";
  const auto r = parse(result_tool::hyperfine, doc.c_str());
  ASSERT_EQ(r.series.size(), 3u);
  std::set<std::string> names;
  for (const auto& s : r.series) {
    names.insert(s.benchmark);
    EXPECT_EQ(s.points.size(), 3u) << s.benchmark;
  }
  EXPECT_EQ(names, (std::set<std::string>{"sort -n nums_{n}.txt", "gzip -k input-{n}.bin -c", "./prog2 {n}"}));
}

TEST(Hyperfine, WithoutAParameterScanThereIsNoN) {
  EXPECT_NE(error_of([] {
              parse(result_tool::hyperfine, R"({"results":[{"command":"sleep 1","times":[1.0]}]})");
            }).find("run hyperfine with a parameter scan"),
            std::string::npos);
  const char* two = R"({"results":[{"command":"./a 1 2","times":[1.0],"parameters":{"n":"1","k":"2"}}]})";
  EXPECT_NE(error_of([&] { parse(result_tool::hyperfine, two); }).find("2 parameters (k, n)"), std::string::npos);
  const auto r = parse(result_tool::hyperfine, two, "n");
  EXPECT_EQ(r.series[0].benchmark, "./a {n} {k}");
  EXPECT_EQ(r.series[0].params, R"({"k":"2"})");
  EXPECT_NE(
      error_of([] { parse(result_tool::hyperfine, R"({"results":[{"command":"x","times":["a"],"parameters":{"n":"3"}}]})"); }).find("not a number"),
      std::string::npos);
}

TEST(ToolResults, FilesThatAreNotTheToolsAreRefusedByName) {
  EXPECT_THROW(parse_result_tool("criterion"), std::invalid_argument);
  EXPECT_THROW(read_tool_results(result_tool::nvbench, file("missing.json"), "", ""), usage_error);
  EXPECT_NE(error_of([] { read_tool_results(result_tool::hyperfine, file("gbench.json"), "", ""); }).find("not hyperfine JSON"), std::string::npos);
  EXPECT_NE(error_of([] { read_tool_results(result_tool::nvbench, file("hyperfine.json"), "", ""); }).find("not nvbench JSON"), std::string::npos);
  EXPECT_NE(error_of([] { read_tool_results(result_tool::gbench, EMA_TOOLS_DIR, "", ""); }).find("folder"), std::string::npos);
}

}  // namespace
}  // namespace ema
