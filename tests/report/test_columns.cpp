// The column families of a result table (report/columns.hpp) and the formatting of tagged values
// by hint (report/values.hpp), each on hand-made points.
#include <gtest/gtest.h>

#include <cmath>

#include "core/registry.hpp"
#include "report/columns.hpp"
#include "report/values.hpp"

namespace ema {
namespace {

point_view point(const std::string& variant, std::uint64_t n, std::vector<double> totals, const std::string& backend = "seq") {
  point_view p;
  p.record.problem = "sort";
  p.record.variant = variant;
  p.record.n = n;
  p.record.backend = backend;
  p.record.status = point_status::ok;
  p.record.params_json = R"({"dist":"uniform","input":"","type":"u32"})";
  metric_view m;
  m.unit = "s";
  m.values = totals;
  m.stats = summarize(totals);
  p.metrics["total"] = m;
  return p;
}

row_context context_of(const std::vector<const point_view*>& pts) {
  row_context r;
  r.points = pts;
  r.label = pts.front()->record.variant;
  for (auto* p : pts) r.point_labels.push_back(p->record.variant);
  r.with_total();
  return r;
}

const tagged_value& column(const value_row& row, const std::string& name) {
  for (const auto& v : row)
    if (v.column == name) return v;
  throw std::runtime_error("no column " + name);
}

TEST(Values, EachHintFormatsItsOwnWay) {
  tagged_value v;
  v.hint = hint::duration, v.x = 0.00125;
  EXPECT_EQ(format_value_by_hint(v), "1.25 ms");
  v.noisy = true;
  EXPECT_EQ(format_value_by_hint(v), "1.25 ms !");
  v = {};
  v.hint = hint::speedup, v.x = 2.5;
  EXPECT_EQ(format_value_by_hint(v), "2.50x");
  v.hint = hint::percent, v.x = 0.789;
  EXPECT_EQ(format_value_by_hint(v), "78.9%");
  v.hint = hint::rate, v.x = 1234.5;
  EXPECT_EQ(format_value_by_hint(v), "1.23e+03");
  v.hint = hint::size, v.x = 4096;
  EXPECT_EQ(format_value_by_hint(v), "4096");
  v.hint = hint::bytes, v.x = 2048;
  EXPECT_EQ(format_value_by_hint(v), "2 KiB");
  v.hint = hint::energy, v.x = NAN;
  EXPECT_EQ(format_value_by_hint(v), "-");
  EXPECT_TRUE(shows_nothing(v));
  v.unavailable = true;
  EXPECT_EQ(format_value_by_hint(v), "unavailable");
  EXPECT_TRUE(shows_nothing(v));
  v = {};
  v.hint = hint::note;
  EXPECT_EQ(format_value_by_hint(v), "-");
  v.text = "12";
  EXPECT_EQ(format_value_by_hint(v), "12");
  EXPECT_FALSE(right_aligned(hint::label));
  EXPECT_FALSE(right_aligned(hint::status));
  EXPECT_TRUE(right_aligned(hint::note));
}

TEST(Columns, IdentityNamesThePooledInstances) {
  const auto a = point("std-sort", 1024, {1e-3, 1e-3, 1e-3}), b = point("std-sort", 1024, {2e-3, 2e-3, 2e-3});
  value_row row;
  identity_values(context_of({&a, &b}), row);
  ASSERT_EQ(row.size(), 2u);
  EXPECT_EQ(format_value_by_hint(row[0]), "1024");
  EXPECT_EQ(format_value_by_hint(row[1]), "std-sort ×2");
}

TEST(Columns, TotalIsTheMedianOfTheInstancesMediansAndFlagsNoise) {
  const auto quiet = point("std-sort", 1024, {1e-3, 1e-3, 1e-3, 1e-3, 1e-3});
  table_notes notes;
  value_row row;
  total_value(context_of({&quiet}), notes, row);
  EXPECT_DOUBLE_EQ(row[0].x, 1e-3);
  EXPECT_FALSE(row[0].noisy);
  EXPECT_TRUE(notes.noisy_rows.empty());
  const auto noisy = point("std-sort", 1024, {1e-3, 1.3e-3, 0.7e-3, 1.6e-3, 0.5e-3});
  row.clear();
  total_value(context_of({&noisy}), notes, row);
  EXPECT_TRUE(row[0].noisy);
  ASSERT_EQ(notes.noisy_rows.size(), 1u);
  EXPECT_NE(notes.noisy_rows[0].find("std-sort n=1024"), std::string::npos) << notes.noisy_rows[0];
}

TEST(Columns, SpeedupIsAgainstTheBaselinesTotal) {
  const auto p = point("quick-omp", 1024, {0.5e-3, 0.5e-3, 0.5e-3}, "omp");
  auto r = context_of({&p});
  const std::map<std::string, double> totals{{"std-sort", 2e-3}, {"quick-omp", 0.5e-3}};
  const std::vector<variant_identity> ids{{"std-sort", "std", backend::seq, variant_role::anchor},
                                          {"quick-omp", "quick", backend::omp, variant_role::source}};
  r.totals = &totals;
  r.identities = &ids;
  value_row row;
  table_notes notes;
  speedup_values(r, notes, row);
  EXPECT_EQ(format_value_by_hint(column(row, "vs seq")), "4.00x");  // the reference algorithm's seq: std-sort
  EXPECT_EQ(format_value_by_hint(column(row, "vs omp")), "1.00x");
  EXPECT_TRUE(notes.caveats.empty());  // two algorithms: the legend's "else the reference algorithm's" says so
}

TEST(Columns, ASpeedupThatIsNotThreadsAloneSaysWhatElseItHolds) {
  // search's omp scans in vectorised blocks, its seq (the source's loop) one element at a time.
  auto p = point("omp", 1 << 20, {1e-3, 1e-3, 1e-3}, "omp");
  p.record.problem = "search";
  auto r = context_of({&p});
  const std::map<std::string, double> totals{{"seq", 4e-3}, {"omp", 1e-3}};
  const std::vector<variant_identity> ids{{"seq", "search", backend::seq, variant_role::source}, {"omp", "search", backend::omp, variant_role::ours}};
  r.totals = &totals;
  r.identities = &ids;
  value_row row;
  table_notes notes;
  speedup_values(r, notes, row);
  EXPECT_EQ(format_value_by_hint(column(row, "vs seq")), "4.00x");
  ASSERT_EQ(notes.caveats.size(), 1u);  // not against itself (vs omp)
  EXPECT_EQ(notes.caveats["vs seq of omp"], "vectorised; seq is scalar");
  EXPECT_EQ(speedup_caveat(ids, "search", "seq", "seq"), "");
}

TEST(Columns, EnergyUnavailableSaysWhyOnce) {
  auto p = point("std-sort", 1024, {1e-3, 1e-3, 1e-3});
  p.unavailable = {{"energy_cpu", "no powercap interface"}};
  table_notes notes;
  value_row row;
  energy_values(context_of({&p}), notes, row);
  ASSERT_EQ(row.size(), 3u);
  for (const auto& v : row) EXPECT_EQ(format_value_by_hint(v), "unavailable");
  EXPECT_EQ(notes.unavailable["energy_cpu"].count("no powercap interface"), 1u);
  // Measured: energy per run, and the energy-delay product with the total time.
  auto q = point("std-sort", 1024, {2e-3, 2e-3, 2e-3});
  metric_view e;
  e.values = {0.5, 0.5, 0.5};
  e.stats = summarize(e.values);
  q.metrics["energy_cpu"] = e;
  q.notes = {{"energy_window_s", 1.0}, {"energy_window_reps", 4}};
  row.clear();
  energy_values(context_of({&q}), notes, row);
  EXPECT_EQ(format_value_by_hint(column(row, "energy/op")), "500 mJ");
  EXPECT_EQ(format_value_by_hint(column(row, "avg W")), "2");
  EXPECT_EQ(format_value_by_hint(column(row, "EDP J·s")), "0.001");
}

TEST(Columns, RateIsTheWorkOverTheKernelTimeElseTheTotal) {
  const auto p = point("std-sort", 1 << 20, {0.01, 0.01, 0.01});
  auto r = context_of({&p});
  r.desc = &find_problem("sort");
  r.declared = param_set::restore_json("sort", r.desc->params, p.record.params_json);
  const nlohmann::json ceilings = nlohmann::json::object();
  r.ceilings = &ceilings;
  value_row row;
  rate_values(r, row);
  EXPECT_EQ(row[0].column, "Mkeys/s");
  EXPECT_EQ(format_value_by_hint(row[0]), "105");        // 2^20 keys in 10 ms
  EXPECT_TRUE(shows_nothing(column(row, "eff. GB/s")));  // keys are no bandwidth
  EXPECT_TRUE(shows_nothing(column(row, "% ceil")));
}

// A bandwidth a problem declares beside its rate of operations (the stencil's): the work model's
// bytes over the same time, against the probed ceiling the declaration names, never a note column.
TEST(Columns, ADeclaredBandwidthIsTheWorkModelsBytesAgainstItsCeiling) {
  const auto p = point("thrust-sort", 1 << 20, {0.01, 0.01, 0.01}, "cuda");
  auto r = context_of({&p});
  problem_desc desc = find_problem("sort");
  static constexpr summary_desc declared[] = {
      {.name = "eff. GB/s", .what = "the keys' bytes", .kind = summary_kind::bandwidth, .gpu_ceiling = "device_copy_bw"}};
  desc.summaries = declared;
  r.desc = &desc;
  r.declared = param_set::restore_json("sort", desc.params, p.record.params_json);
  const nlohmann::json ceilings = {{"device_copy_bw", {{"value", 1e9}}}, {"device_read_bw", {{"value", 4e9}}}};
  r.ceilings = &ceilings;
  value_row row;
  rate_values(r, row);
  EXPECT_EQ(format_value_by_hint(column(row, "eff. GB/s")), "0.839");  // 2^20 keys read and written, 4 bytes each, in 10 ms
  EXPECT_EQ(format_value_by_hint(column(row, "% ceil")), "83.9%");     // of the copy bandwidth it names, not the read
  value_row notes;
  summary_values(r, notes);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(declared_bandwidth(&desc), &declared[0]);
  EXPECT_EQ(declared_bandwidth(&find_problem("sort")), nullptr);
  EXPECT_NE(declared_bandwidth(&find_problem("stencil")), nullptr);
}

// `% ceil` of a row run at k processors (issue 32): against what k of them can draw, not the
// whole machine: min(k × one thread's, all threads') on the host, k/m of an m-SM green context's
// read on one GPU (at most the device's), k devices' read on several; the whole back end's
// elsewhere and where the probe lacks the partition.
TEST(Columns, PercentOfCeilingIsAgainstTheProcessorsTheRowRanOn) {
  problem_desc desc = find_problem("sort");
  static constexpr summary_desc declared[] = {
      {.name = "eff. GB/s", .what = "the keys' bytes", .kind = summary_kind::bandwidth, .gpu_ceiling = "device_read_bw"}};
  desc.summaries = declared;
  const nlohmann::json ceilings = {{"host_read_bw_one", {{"value", 1e9}}},
                                   {"host_read_bw_all", {{"value", 10e9}}},
                                   {"device_read_bw", {{"value", 4e9}}},
                                   {"device_read_bw_all", {{"value", 8e9}}},
                                   {"device_read_bw_partition", {{"value", 1e9}, {"sms", 8}}}};
  auto percent = [&](const std::string& backend, const std::string& launch, const nlohmann::json& c) {
    auto p = point("x", 1 << 20, {0.01, 0.01, 0.01}, backend);  // 0.839 GB/s
    auto params = nlohmann::json::parse(p.record.params_json);
    if (!launch.empty()) params[launch.substr(0, launch.find('='))] = launch.substr(launch.find('=') + 1);
    p.record.params_json = params.dump();
    auto r = context_of({&p});
    r.desc = &desc;
    r.declared = param_set::restore_json("sort", desc.params, R"({"dist":"uniform","input":"","type":"u32"})");
    r.ceilings = &c;
    value_row row;
    rate_values(r, row);
    return format_value_by_hint(column(row, "% ceil"));
  };
  EXPECT_EQ(percent("omp", "launch.omp_threads=2", ceilings), "41.9%");  // 2 threads: 2 GB/s
  EXPECT_EQ(percent("omp", "launch.omp_threads=16", ceilings), "8.4%");  // 16 threads: the machine's 10 GB/s
  EXPECT_EQ(percent("omp", "", ceilings), "8.4%");                       // no count: every thread
  EXPECT_EQ(percent("cuda", "launch.sms=16", ceilings), "41.9%");        // 16 SMs: twice 8 SMs' 1 GB/s
  EXPECT_EQ(percent("cuda", "launch.sms=132", ceilings), "21.0%");       // the device's 4 GB/s
  EXPECT_EQ(percent("multi-gpu", "launch.gpus=1", ceilings), "21.0%");   // one device's 4 GB/s
  EXPECT_EQ(percent("multi-gpu", "", ceilings), "10.5%");                // both: 8 GB/s
  auto without = ceilings;
  without.erase("device_read_bw_partition");
  EXPECT_EQ(percent("cuda", "launch.sms=16", without), "21.0%");  // no partition probed: the device's
}

// A problem's declared summaries (problem_desc::summaries) are its own columns: each the note its
// variants record, as recorded, empty ("-") in a row without it.
TEST(Columns, SummariesAreTheNotesTheProblemDeclares) {
  auto cdp = point("merge-cdp", 1 << 20, {1.0}, "cuda");
  cdp.notes = {{"device_launches", 12}, {"depth", 3}};
  auto cpu = point("std-sort", 1 << 20, {1.0});
  cpu.notes = nlohmann::json::object();
  for (const auto* p : {&cdp, &cpu}) {
    auto r = context_of({p});
    r.desc = &find_problem("sort");
    value_row row;
    summary_values(r, row);
    ASSERT_EQ(row.size(), r.desc->summaries.size());
    EXPECT_EQ(row[0].column, "device_launches");
    EXPECT_EQ(row[0].hint, hint::note);
    EXPECT_EQ(format_value_by_hint(column(row, "device_launches")), p == &cdp ? "12" : "-");
    EXPECT_EQ(format_value_by_hint(column(row, "depth")), p == &cdp ? "3" : "-");
    EXPECT_EQ(format_value_by_hint(column(row, "iterations")), "-");
  }
  for (const auto& s : find_problem("sort").summaries) EXPECT_GT(std::string_view(s.what).size(), 10u) << s.name;
}

TEST(Columns, StatusNumbersEveryReasonAsAFootnote) {
  auto ok = point("std-sort", 1024, {1e-3, 1e-3, 1e-3});
  auto late = point("std-sort", 1024, {});
  late.record.status = point_status::timeout;
  late.record.reason = "over the per-point timeout of 1 s";
  late.record.instance = 1;
  table_notes notes;
  value_row row;
  status_value(context_of({&ok, &late}), notes, row);
  EXPECT_EQ(format_value_by_hint(row[0]), "1 of 2 ok; timeout [1]");
  ASSERT_EQ(notes.footnotes.size(), 1u);
  EXPECT_EQ(notes.footnotes[0], "[1] std-sort n=1024 input 1: over the per-point timeout of 1 s");
}

}  // namespace
}  // namespace ema

namespace ema {
namespace {

// A point's stored parameters are parsed once, on first use, for every printer (issue 30, item 1):
// as the problem declares them, and split into the table's group and the row's tuning label.
TEST(ParamsView, StoredParametersAreParsedOnceAsTheProblemDeclaresThem) {
  auto p = point("merge-omp", 1024, {1.0});
  const auto& first = p.parameters();
  EXPECT_EQ(&first, &p.parameters());  // kept, not parsed again
  ASSERT_TRUE(first.declared.has_value());
  EXPECT_EQ(first.declared->text("dist"), "uniform");
  EXPECT_EQ(first.split.rest, p.record.params_json);  // sort has no tuning parameter
  EXPECT_EQ(first.split.tuning, "");

  point_view stencil;
  stencil.record.problem = "stencil";
  stencil.record.params_json = R"({"k":"4","steps":"10"})";
  EXPECT_EQ(stencil.parameters().split.tuning, "k=4");  // the stencil's k is a tuning parameter: part of the row's label
  EXPECT_EQ(stencil.parameters().split.rest.find("\"k\""), std::string::npos);

  point_view unknown;
  unknown.record.problem = "no-such-problem";
  unknown.record.params_json = R"({"a":"1"})";
  EXPECT_FALSE(unknown.parameters().declared.has_value());  // its work model's columns stay empty
  EXPECT_EQ(unknown.parameters().split.rest, unknown.record.params_json);
}

}  // namespace
}  // namespace ema

namespace ema {
namespace {

// The machine-readable tables give each value in its hint's unit, or its text, or null where the
// terminal shows nothing (report/values.hpp, value_json).
TEST(Values, MachineReadableValuesFollowTheHint) {
  tagged_value t{"total", hint::duration, 0.0015};
  EXPECT_EQ(value_json(t), nlohmann::json(0.0015));
  EXPECT_STREQ(hint_name(t.hint), "duration");
  t.unavailable = true;
  EXPECT_TRUE(value_json(t).is_null());
  tagged_value none{"vs seq", hint::speedup};
  EXPECT_TRUE(value_json(none).is_null());
  EXPECT_EQ(format_value_by_hint(none), "-");
  tagged_value status{"status", hint::status, std::nan(""), "ok [1]"};
  EXPECT_EQ(value_json(status), nlohmann::json("ok [1]"));
  tagged_value percent{"% ceil", hint::percent, 0.78};
  EXPECT_EQ(value_json(percent), nlohmann::json(0.78));  // a fraction; the terminal shows 78.0%
  EXPECT_STREQ(hint_name(hint::percent), "percent");
}

}  // namespace
}  // namespace ema
