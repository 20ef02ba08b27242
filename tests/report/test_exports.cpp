// The JSON export follows schema ema.run/1; CSV has one row per point and metric; tables show
// every status with its reason and unavailable energy as such, never as 0.
#include <algorithm>
#include <gtest/gtest.h>

#include "report/exports.hpp"
#include "report/table.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

experiment_view sample_view() {
  experiment_view v;
  v.experiment.id = 3;
  v.experiment.state = "finished";
  v.experiment.machine = {{"host", {{"cpu_model", "cpu"}, {"logical_cores", 2}, {"memory_bytes", 1e9}}}, {"gpus", nlohmann::json::array()}};
  v.experiment.ceilings = {{"host_read_bw_one", {{"value", 10e9}, {"unit", "B/s"}}}};
  point_view ok;
  ok.record.problem = "search";
  ok.record.variant = "seq";
  ok.record.backend = "seq";
  ok.record.n = 1 << 20;
  ok.record.params_json = R"({"copies":"1","hit":"none"})";
  ok.record.status = point_status::ok;
  ok.record.verified = true;
  ok.params = nlohmann::json::parse(ok.record.params_json);
  ok.result = {{"index", -1}};
  ok.unavailable = {{"energy_cpu", "no powercap interface"}};
  ok.metrics["total"] = {"s", summarize(std::vector<double>{1e-3, 2e-3, 3e-3}), {1e-3, 2e-3, 3e-3}};
  point_view bad = ok;
  bad.record.variant = "omp";
  bad.record.backend = "omp";
  bad.record.status = point_status::crashed;
  bad.record.verified = false;
  bad.record.reason = "killed by signal 11 (Segmentation fault)";
  bad.metrics.clear();
  v.points = {ok, bad};
  return v;
}

TEST(Exports, JsonFollowsTheSchema) {
  auto j = to_run_json(sample_view());
  EXPECT_EQ(j["schema"], "ema.run/1");
  ASSERT_EQ(j["points"].size(), 2u);
  for (const auto& p : j["points"])
    for (const char* key : {"problem", "variant", "n", "params", "status", "reason", "verified", "result", "metrics"})
      EXPECT_TRUE(p.contains(key)) << key;
  const auto& total = j["points"][0]["metrics"]["total"];
  EXPECT_DOUBLE_EQ(total["median"].get<double>(), 2e-3);
  EXPECT_DOUBLE_EQ(total["min"].get<double>(), 1e-3);
  EXPECT_DOUBLE_EQ(total["max"].get<double>(), 3e-3);
  EXPECT_EQ(total["unit"], "s");
  EXPECT_EQ(total["samples"].size(), 3u);
  const auto& energy = j["points"][0]["metrics"]["energy_cpu"];
  EXPECT_TRUE(energy["median"].is_null());
  EXPECT_EQ(energy["unavailable"], "no powercap interface");
  EXPECT_EQ(j["points"][1]["status"], "crashed");
  EXPECT_EQ(j["points"][0]["params"]["hit"], "none");
  EXPECT_EQ(j["points"][0]["result"]["index"], -1);
}

TEST(Exports, CsvHasOneRowPerPointAndMetric) {
  auto csv = to_csv(sample_view());
  EXPECT_EQ(csv.rfind("experiment,problem,variant,backend,n,params,seed,instance,status,verified,metric,unit,count,median", 0), 0u);
  EXPECT_NE(csv.find(",seq,seq,1048576,\"{\"\"copies\"\":\"\"1\"\",\"\"hit\"\":\"\"none\"\"}\",0,0,ok,1,total,s,3,0.002,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("energy_cpu,J,0,,,,,,unavailable: no powercap interface"), std::string::npos) << csv;
  EXPECT_NE(csv.find("crashed,0,,,0,,,,,,killed by signal 11"), std::string::npos) << csv;
}

// `ema show --samples` (issue 31, item 6): a row per sample, the parameters as columns; a point
// without samples keeps a row; a parameter named like a fixed column is prefixed; a point the
// tables leave out says why.
TEST(Exports, SamplesHaveARowEachAndTheParametersAsColumns) {
  auto v = sample_view();
  v.points[1].params["n"] = "7";  // a parameter named as a fixed column
  set_aside_point again{v.points[0], "measured again"};
  v.set_aside.push_back(again);
  const auto csv = to_samples_csv(v);
  EXPECT_EQ(
      csv.rfind("experiment,problem,variant,backend,n,instance,seed,status,verified,disturbed,left_out,copies,hit,param.n,metric,unit,sample,value\n",
                0),
      0u)
      << csv;
  EXPECT_NE(csv.find("3,search,seq,seq,1048576,0,0,ok,1,0,,1,none,,total,s,0,0.001\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("3,search,seq,seq,1048576,0,0,ok,1,0,,1,none,,total,s,2,0.003\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("3,search,omp,omp,1048576,0,0,crashed,0,0,,1,none,7,,,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",ok,1,0,measured again,1,none,,total,s,1,0.002\n"), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 + 1 + 3);
}

TEST(Exports, ExtraPGetsALinePerSampleOfThePointsThatRan) {
  auto v = sample_view();
  v.set_aside.push_back({v.points[0], "measured again"});  // left out, as the fits leave it
  auto other = v.points[0];
  other.record.params_json = R"({"copies":"3","hit":"none"})";  // not the defaults: named in the call path
  other.metrics["total"] = {"s", summarize(std::vector<double>{5e-3}), {5e-3}};
  v.points.push_back(other);
  const auto text = to_extrap_jsonl(v);
  std::vector<nlohmann::json> lines;
  std::size_t at = 0;
  for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(nlohmann::json::parse(text.substr(at, end - at)));
  EXPECT_EQ(at, text.size());        // every line ends with a newline
  ASSERT_EQ(lines.size(), 3u + 1u);  // the crashed point has none
  // What Extra-P's JSON Lines reader takes: params (the same keys on every line), callpath, metric, value.
  EXPECT_EQ(lines[0], (nlohmann::json{{"params", {{"n", 1 << 20}}}, {"callpath", "search->seq"}, {"metric", "total"}, {"value", 1e-3}}));
  EXPECT_EQ(lines[2]["value"], 3e-3);
  EXPECT_EQ(lines[3]["callpath"], "search (copies=3)->seq");
  for (const auto& l : lines) EXPECT_EQ(l.size(), 4u);
}

TEST(Exports, TablesShowStatusReasonsAndUnavailableEnergy) {
  auto text = render_tables(sample_view(), table_style::text);
  EXPECT_NE(text.find("crashed [1]"), std::string::npos) << text;
  EXPECT_NE(text.find("[1] omp n=1048576: killed by signal 11"), std::string::npos) << text;
  EXPECT_NE(text.find("energy_cpu: unavailable (no powercap interface)"), std::string::npos) << text;
  EXPECT_NE(text.find("2 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("21.0%"), std::string::npos) << text;  // 4 MiB in 2 ms over 10 GB/s
  auto md = render_tables(sample_view(), table_style::markdown);
  EXPECT_NE(md.find("| variant |"), std::string::npos) << md;
  EXPECT_NE(md.find("-: | ---"), std::string::npos) << md;
}

// What makes a time mislead is said beside it (issue 31, item 4): a point that ran on a busy
// machine, and a program whose wall time is well over its CPU time, each a footnote on its status.
TEST(Exports, TablesSayWhereTheMachineWasBusyOrTheProgramWaited) {
  auto v = sample_view();
  v.points.resize(1);
  v.points[0].notes = {{"disturbed", "other processes kept 1.9 CPUs busy"}};
  auto text = render_tables(v, table_style::text);
  EXPECT_NE(text.find("ok, busy [1]"), std::string::npos) << text;
  EXPECT_NE(text.find("[1] seq n=1048576: the machine was busy while it ran: other processes kept 1.9 CPUs busy"), std::string::npos) << text;
  v.points[0].notes = nlohmann::json::object();
  const std::vector<double> cpu = {4e-3, 4e-3, 4e-3};
  v.points[0].metrics["total"] = {"s", summarize(std::vector<double>{20e-3, 21e-3, 22e-3}), {20e-3, 21e-3, 22e-3}};
  v.points[0].metrics["user"] = {"s", summarize(cpu), cpu};
  v.points[0].metrics["sys"] = {"s", summarize(std::vector<double>{1e-3}), {1e-3}};
  text = render_tables(v, table_style::text);
  EXPECT_NE(text.find("ok, waited [1]"), std::string::npos) << text;
  EXPECT_NE(text.find("its wall time is 4.2× its CPU time"), std::string::npos) << text;
  v.points[0].metrics["user"] = {"s", summarize(std::vector<double>{19e-3}), {19e-3}};  // CPU-bound: nothing to say
  EXPECT_EQ(render_tables(v, table_style::text).find("waited"), std::string::npos);
}

// A size whose every sample is alike but whose time lies far off its neighbours (a busy spell the
// samples shared) is marked beside it, not only in the fit's notes.
TEST(Exports, TablesMarkARowOffItsNeighbours) {
  auto v = sample_view();
  const auto one = v.points[0];
  v.points.clear();
  for (std::uint64_t n = 1024; n <= 1048576; n *= 2) {
    auto p = one;
    p.record.n = n;
    const double t = 1e-9 * static_cast<double>(n) * (n == 16384 ? 8 : 1);
    const std::vector<double> xs = {t, t * 1.001, t * 1.002};
    p.metrics["total"] = {"s", summarize(xs), xs};
    v.points.push_back(p);
  }
  const auto text = render_tables(v, table_style::text);
  EXPECT_NE(text.find("ok, off [1]"), std::string::npos) << text;
  EXPECT_NE(text.find("[1] seq n=16384: its total time lies +700% off the line through its neighbouring sizes"), std::string::npos) << text;
  EXPECT_EQ(text.find("off [2]"), std::string::npos) << "only the displaced size is marked";
}

TEST(Exports, SortTablesShowPowerEnergyDelayAndTheCdpNotes) {
  experiment_view v = sample_view();
  point_view p;
  p.record.problem = "sort";
  p.record.variant = "merge-cdp";
  p.record.backend = "cuda";
  p.record.n = 1 << 24;
  p.record.params_json = R"({"type":"u32","dist":"uniform","input":""})";
  p.record.status = point_status::ok;
  p.record.verified = true;
  p.params = nlohmann::json::parse(p.record.params_json);
  // 2 J a run, 25 runs in a 0.5 s window: 100 W; a total of 10 ms: an EDP of 0.02 J·s.
  p.notes = {{"device_launches", "12285"}, {"depth", "12"}, {"energy_window_s", 0.5}, {"energy_window_reps", 25}};
  p.metrics["total"] = {"s", summarize(std::vector<double>{0.01, 0.01, 0.01}), {0.01, 0.01, 0.01}};
  p.metrics["energy_gpu"] = {"J", summarize(std::vector<double>{2.0}), {2.0}};
  v.points = {p};
  const auto text = render_tables(v, table_style::text);
  for (const char* column : {"energy/op", "avg W", "EDP J·s", "device_launches", "depth"})
    EXPECT_NE(text.find(column), std::string::npos) << column << "\n" << text;
  EXPECT_EQ(text.find("iterations"), std::string::npos) << "a note no row has gets no column\n" << text;
  EXPECT_NE(text.find("  100  "), std::string::npos) << text;
  EXPECT_NE(text.find("0.02"), std::string::npos) << text;
  EXPECT_NE(text.find("12285"), std::string::npos) << text;
}

TEST(Exports, BfsRateComesFromTheEdgesEachInstanceReached) {
  // The rate's operations are the result's `edges` (rate_desc::work_field), not the work model's
  // estimate from n: two instances reaching 3e6 and 5e6 edges in 4 ms each: 1000 MTEPS.
  experiment_view v = sample_view();
  auto instance = [](int k, double edges) {
    point_view p;
    p.record.problem = "bfs";
    p.record.variant = "seq";
    p.record.backend = "seq";
    p.record.n = 1 << 20;
    p.record.instance = k;
    p.record.params_json = R"({"graph":"kron","degree":16,"directed":false,"roots":16,"source":-1,"input":"","format":"auto"})";
    p.record.status = point_status::ok;
    p.record.verified = true;
    p.params = nlohmann::json::parse(p.record.params_json);
    p.result = {{"edges", edges}};
    p.metrics["total"] = {"s", summarize(std::vector<double>{0.004, 0.004, 0.004}), {0.004, 0.004, 0.004}};
    return p;
  };
  v.points = {instance(0, 3e6), instance(1, 5e6)};
  const auto text = render_tables(v, table_style::text);
  EXPECT_NE(text.find("MTEPS"), std::string::npos) << text;
  EXPECT_NE(text.find(" 1e+03 "), std::string::npos) << "the estimate would be 16 roots x 2^24 edges / 4 ms\n" << text;
}

TEST(Exports, WriteTextReportsBadPaths) {
  test::temp_dir dir;
  write_text(dir.file("ok.txt"), "x");
  EXPECT_THROW(write_text(dir.file("no/such/dir/x.txt"), "x"), std::runtime_error);
}

}  // namespace
}  // namespace ema
