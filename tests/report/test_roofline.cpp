// The roofline (report/roofline.hpp) on hand-made points and ceilings: where each point lies, under
// which roof, what bounds it, and what the chart and table say when a roof is missing.
#include <gtest/gtest.h>

#include <cmath>

#include "core/registry.hpp"
#include "measure/probe.hpp"
#include "report/roofline.hpp"

namespace ema {
namespace {

constexpr const char* gauss_f64 = R"({"density":"0.01","file":"","matrix":"dense","type":"f64"})";
constexpr const char* sort_u32 = R"({"dist":"uniform","input":"","type":"u32"})";

point_view point(const std::string& problem, const std::string& params, const std::string& variant, const std::string& backend, std::uint64_t n,
                 double total, double kernel = NAN) {
  point_view p;
  p.record.problem = problem;
  p.record.variant = variant;
  p.record.n = n;
  p.record.backend = backend;
  p.record.status = point_status::ok;
  p.record.params_json = params;
  p.params = nlohmann::json::parse(params);
  auto metric = [](double v) {
    metric_view m;
    m.unit = "s";
    m.values = {v, v, v};
    m.stats = summarize(m.values);
    return m;
  };
  p.metrics["total"] = metric(total);
  if (std::isfinite(kernel)) p.metrics["kernel"] = metric(kernel);
  return p;
}

nlohmann::json ceiling(double v, const char* unit) { return {{"value", v}, {"unit", unit}}; }

nlohmann::json ceilings() {
  return {{"host_read_bw_one", ceiling(10e9, "B/s")},
          {"host_read_bw_all", {{"value", 40e9}, {"unit", "B/s"}, {"detail", "8 threads, 512 MiB"}}},
          {"host_fma_f64_one", ceiling(50e9, "FLOP/s")},
          {"host_fma_f64_all", ceiling(400e9, "FLOP/s")},
          {"host_fma_f32_one", ceiling(100e9, "FLOP/s")},
          {"host_fma_f32_all", ceiling(800e9, "FLOP/s")},
          {"device_read_bw", ceiling(3e12, "B/s")},
          {"device_fma_f64", ceiling(30e12, "FLOP/s")},
          {"device_fma_f32", {{"unavailable", "a test leaves it out"}}}};
}

const roofline_point& at(const roofline& r, const std::string& variant, std::uint64_t n) {
  for (const auto& p : r.points)
    if (p.variant == variant && p.n == n) return p;
  throw std::runtime_error("no point " + variant);
}

TEST(Roofline, PlacesEachPointUnderItsBackEndsRoofs) {
  experiment_view v;
  v.experiment.ceilings = ceilings();
  // gauss in double precision at n = 1000: 2/3 n³ + 2 n² flops over 8 n (n + 1) bytes.
  const double n = 1000, flops = 2.0 / 3.0 * n * n * n + 2 * n * n, bytes = 8 * n * (n + 1);
  v.points.push_back(point("gauss", gauss_f64, "seq", "seq", 1000, 0.1));
  v.points.push_back(point("gauss", gauss_f64, "omp", "omp", 1000, 0.02));
  v.points.push_back(point("gauss", gauss_f64, "cuda", "cuda", 1000, 0.5, 0.001));  // the kernel time, not the total
  v.points.push_back(point("gauss", gauss_f64, "cuda", "cuda", 10, 0.5, 1e-5));
  const auto r = roofline_of(v, "gauss", gauss_f64);
  ASSERT_EQ(r.points.size(), 4u);
  EXPECT_EQ(r.unit, "FLOP");
  const auto& seq = at(r, "seq", 1000);
  EXPECT_NEAR(seq.intensity, flops / bytes, 1e-9);
  EXPECT_NEAR(seq.achieved, flops / 0.1, 1);
  const auto& sroof = r.roofs[seq.roof_index];
  EXPECT_EQ(sroof.name, "CPU, 1 thread");
  EXPECT_EQ(sroof.peak, 50e9);                      // double precision: the f64 roof
  EXPECT_FALSE(sroof.memory_bound(seq.intensity));  // 83 FLOP/B is past the ridge at 5
  EXPECT_NEAR(seq.fraction(r.roofs), flops / 0.1 / 50e9, 1e-9);
  EXPECT_EQ(r.roofs[at(r, "omp", 1000).roof_index].name, "CPU, 8 threads");
  const auto& gpu = at(r, "cuda", 1000);
  EXPECT_NEAR(gpu.achieved, flops / 0.001, 1e3);
  EXPECT_EQ(r.roofs[gpu.roof_index].name, "GPU");
  // n = 10: 8.8 FLOP/B, under the GPU's ridge at 10 FLOP/B: memory-bound.
  const auto& small = at(r, "cuda", 10);
  EXPECT_TRUE(r.roofs[small.roof_index].memory_bound(small.intensity));
  EXPECT_NEAR(r.roofs[small.roof_index].attainable(small.intensity), 3e12 * small.intensity, 1);

  const auto table = render_roofline(r, table_style::markdown);
  EXPECT_NE(table.find("| seq"), std::string::npos) << table;
  EXPECT_NE(table.find("compute (50.0 GFLOP/s)"), std::string::npos) << table;
  EXPECT_NE(table.find("CPU, 8 threads"), std::string::npos) << table;
  // The table reads each variant at its largest size: cuda at n = 1000, compute-bound.
  EXPECT_NE(table.find("compute (30.0 TFLOP/s)"), std::string::npos) << table;

  const auto c = roofline_chart(r, [](const std::string&) { return 0; });
  ASSERT_EQ(c.series.size(), 3u + 3u);  // three roofs, then three variants
  EXPECT_EQ(c.series[0].color, -1);
  EXPECT_EQ(c.series[0].curve_label, "CPU, 1 thread");
  // A roof bends at its ridge: three vertices, the middle one at peak / bandwidth.
  ASSERT_EQ(c.series[0].curve.size(), 3u);
  EXPECT_NEAR(c.series[0].curve[1].first, 50e9 / 10e9, 1e-9);
  EXPECT_NEAR(c.series[0].curve[1].second, 50e9, 1);
  EXPECT_NE(c.svg("t").find("CPU, 1 thread"), std::string::npos);
}

TEST(Roofline, SaysWhichRoofIsMissingAndWhy) {
  experiment_view v;
  v.experiment.ceilings = ceilings();
  constexpr const char* gauss_f32 = R"({"density":"0.01","file":"","matrix":"dense","type":"f32"})";
  v.points.push_back(point("gauss", gauss_f32, "cuda", "cuda", 1000, 0.5, 0.001));
  auto r = roofline_of(v, "gauss", gauss_f32);
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_TRUE(std::isnan(r.roofs[0].peak));  // device_fma_f32 unavailable: the memory roof alone
  EXPECT_TRUE(r.roofs[0].memory_bound(1e6));
  const auto table = render_roofline(r, table_style::text);
  EXPECT_NE(table.find("no compute roof: a test leaves it out"), std::string::npos) << table;

  // A probe stored before the compute roofs: the roofline names the ceiling it lacks.
  v.experiment.ceilings.erase("host_fma_f64_one");
  v.points = {point("gauss", gauss_f64, "seq", "seq", 100, 0.01)};
  r = roofline_of(v, "gauss", gauss_f64);
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_NE(render_roofline(r, table_style::text).find("predates it (no host_fma_f64_one)"), std::string::npos);

  // No memory ceiling: no roof, and the variant's points are not drawn.
  v.experiment.ceilings.erase("host_read_bw_one");
  r = roofline_of(v, "gauss", gauss_f64);
  EXPECT_TRUE(r.empty());
  ASSERT_FALSE(r.missing.empty());
  EXPECT_NE(r.missing.back().find("no memory roof"), std::string::npos);
  EXPECT_TRUE(roofline_chart(r, [](const std::string&) { return 0; }).empty());
  EXPECT_EQ(render_roofline(r, table_style::text), "");
}

TEST(Roofline, OperationsThatAreNotFlopsHaveTheMemoryRoofAlone) {
  experiment_view v;
  v.experiment.ceilings = ceilings();
  v.points.push_back(point("sort", sort_u32, "std-sort", "seq", 1 << 20, 0.05));
  const auto r = roofline_of(v, "sort", sort_u32);
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.unit, "keys");
  EXPECT_NEAR(r.points[0].intensity, 1.0 / 8, 1e-12);  // a u32 key read and written
  EXPECT_NEAR(r.points[0].fraction(r.roofs), (1 << 20) / 0.05 / (10e9 / 8), 1e-9);
  const auto table = render_roofline(r, table_style::text);
  EXPECT_NE(table.find("keys are not floating-point arithmetic"), std::string::npos) << table;
  EXPECT_NE(table.find("memory (10.0 GB/s)"), std::string::npos) << table;
}

TEST(Roofline, AProgramEmaDoesNotKnowHasNone) {
  experiment_view v;
  v.experiment.ceilings = ceilings();
  v.points.push_back(point("isort", "{}", "a.out", "external", 100, 0.01));
  const auto r = roofline_of(v, "isort", "{}");
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(render_roofline(r, table_style::markdown), "");
}

TEST(Probe, StoredCeilingsWithoutTheComputeRoofsAreIncomplete) {
  auto c = ceilings();
  EXPECT_FALSE(ceilings_complete(c));  // the test's probe lacks most device ceilings
  for (const char* name : {"device_read_bw_all", "device_copy_bw", "launch_overhead", "launch_latency", "h2d_pinned_bw", "d2h_pinned_bw",
                           "device_fma_f32_all", "device_fma_f64_all", "device_read_bw_partition"})
    c[name] = {{"unavailable", "none"}};
  EXPECT_TRUE(ceilings_complete(c));
  c.erase("host_fma_f32_all");
  EXPECT_FALSE(ceilings_complete(c));
  EXPECT_FALSE(ceilings_complete(nlohmann::json::array()));
  EXPECT_STREQ(compute_ceiling_for_backend("omp", true), "host_fma_f64_all");
  EXPECT_STREQ(compute_ceiling_for_backend("cuda", false), "device_fma_f32");
  EXPECT_STREQ(compute_ceiling_for_backend("external", false), "");
}

}  // namespace
}  // namespace ema
