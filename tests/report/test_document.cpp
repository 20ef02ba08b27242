// The report's pieces: charts as SVG with escaped names and log axes, and the HTML page built
// from an experiment, every stored name escaped, nothing fetched from elsewhere.
#include <gtest/gtest.h>

#include "report/document.hpp"
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
}

}  // namespace
}  // namespace ema
