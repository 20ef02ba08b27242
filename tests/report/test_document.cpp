// The report's pieces: charts as SVG with escaped names and log axes, and the HTML page built
// from an experiment, every stored name escaped, nothing fetched from elsewhere.
#include <gtest/gtest.h>

#include "report/document.hpp"
#include "report/table.hpp"
#include "report/svg_chart.hpp"

namespace ema {
namespace {

TEST(Document, Escaping) {
  EXPECT_EQ(html_escape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(format_count(1024), "1.02k");
  EXPECT_EQ(format_count(1e6), "1M");
  EXPECT_EQ(format_count(12), "12");
}

TEST(Document, ChartDrawsPointsCurvesBandsAndMarkers) {
  chart c;
  c.title = "total <time>";
  chart_series s;
  s.name = "v<1>";
  s.points = {{10, 1, 0.5, 2, "tip & more"}, {100, 10, 10, 10, ""}, {-1, 5, 0, 0, "dropped"}};
  s.curve = {{10, 1}, {100, 10}};
  s.band_lo = {{10, 0.8}, {100, 8}};
  s.band_hi = {{10, 1.2}, {100, 12}};
  c.series.push_back(s);
  c.markers.push_back({50, "knee", 0});
  EXPECT_FALSE(c.empty());
  const auto svg = c.svg("c0");
  EXPECT_NE(svg.find("total &lt;time&gt;"), std::string::npos);
  EXPECT_NE(svg.find("v&lt;1&gt;"), std::string::npos);
  EXPECT_NE(svg.find("tip &amp; more"), std::string::npos);
  EXPECT_EQ(svg.find("dropped"), std::string::npos);  // a non-positive coordinate has no place on a log axis
  EXPECT_NE(svg.find("class=\"band\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"whisker\""), std::string::npos);
  EXPECT_NE(svg.find(">knee<"), std::string::npos);
  EXPECT_TRUE(chart{}.empty());
}

TEST(Document, HtmlPageOfAnExperiment) {
  experiment_view v;
  v.experiment.id = 4;
  v.experiment.state = "finished";
  v.experiment.command_line = "ema run <script>alert(1)</script>";
  v.experiment.machine = {{"host", {{"cpu_model", "cpu & co"}}}, {"gpus", nlohmann::json::array()}};
  for (std::uint64_t n : {1000, 2000, 4000, 8000}) {
    point_view p;
    p.record.problem = "search";
    p.record.variant = "se<q>";
    p.record.backend = "seq";
    p.record.n = n;
    p.record.params_json = R"({"hit":"none"})";
    p.record.status = point_status::ok;
    p.notes = nlohmann::json::object();
    const std::vector<double> t = {1e-9 * static_cast<double>(n)};
    p.metrics["total"] = {"s", summarize(t), t};
    v.points.push_back(p);
  }
  fits_by_metric fits;
  fit_request r;
  r.options.bootstrap = 20;
  fits["total"] = fit_experiment(v, r);
  const auto page = render_html(v, fits);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(page.find("se<q>"), std::string::npos);
  EXPECT_NE(page.find("se&lt;q&gt;"), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_NE(page.find("Θ(n)"), std::string::npos);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  const auto md = render_markdown(v, fits);
  EXPECT_NE(md.find("Equations of total"), std::string::npos);
  // The answer first (issue 31, item 2): the overview before any problem's section, the tables
  // folded, the charts titled in words with the problem's n on the x axis.
  const auto overview = page.find("<section id=\"overview\">");
  ASSERT_NE(overview, std::string::npos);
  EXPECT_LT(overview, page.find("<section id=\"g0\">"));
  EXPECT_NE(page.find("<td>se&lt;q&gt;</td><td>1000 – 8000</td><td>Θ(n)</td>"), std::string::npos) << page.substr(overview, 1500);
  EXPECT_NE(page.find("<h2>Tables</h2>\n<details>"), std::string::npos);
  EXPECT_NE(page.find(">Total time<title>"), std::string::npos);
  EXPECT_NE(page.find("n: number of 32-bit elements in the array"), std::string::npos);
  EXPECT_EQ(md.find("\n### Overview\n"), 0u);
}

// The machine as a table a reader wants: caches in KiB and MiB, the GPU in words; whatever the
// stored description lacks, or holds as something else, left out.
TEST(Document, MachineIsATable) {
  const auto machine = nlohmann::json::parse(R"({"host": {"cpu_model": "Xeon", "logical_cores": 16, "allowed_cpus": 8,
      "memory_bytes": 135148564480, "caches": [{"level": 1, "type": "Data", "size_bytes": 49152, "shared_cpu_list": "0"},
      {"level": 3, "type": "Unified", "size_bytes": 314572800, "shared_cpu_list": "0-15"}, {"level": "two"}]},
      "gpus": [{"index": 0, "name": "NVIDIA H200", "sm_count": 132, "memory_bytes": 150109880320, "compute_capability": "9.0"}],
      "cuda": {"driver": "580.1", "runtime": "13.0"}})");
  const auto t = render_machine(machine, table_style::text);
  EXPECT_NE(t.find("16 logical, 8 allowed to ema"), std::string::npos) << t;
  EXPECT_NE(t.find("L1d 48 KiB, L3 300 MiB (shared by CPUs 0-15)"), std::string::npos) << t;
  EXPECT_NE(t.find("NVIDIA H200: compute capability 9.0, 132 SMs, 140 GiB memory"), std::string::npos) << t;
  EXPECT_NE(t.find("driver 580.1, runtime 13.0"), std::string::npos) << t;
  EXPECT_EQ(render_machine(nlohmann::json::parse(R"({"host": 3, "gpus": {"a": 1}})"), table_style::text), "");
}

}  // namespace
}  // namespace ema
