// `ema compare` says when a ratio is one the noise cannot explain (issue 31, item 4): a point that
// lies off its neighbours in one experiment, or ran on a busy machine, is marked with why, so a
// 10× "slower" from one disturbed size is not read as the code's doing.
// (Off its neighbours is judged along a series of ten sizes or so: analysis/class_set.hpp.)
#include <gtest/gtest.h>

#include "report/compare.hpp"

namespace ema {
namespace {

experiment_view linear(double slow_at = 0, bool busy_at_largest = false) {
  experiment_view v;
  for (std::uint64_t n = 1024; n <= 1048576; n *= 2) {
    point_view p;
    p.record.problem = "search";
    p.record.variant = "seq";
    p.record.n = n;
    p.record.params_json = "{}";
    p.record.status = point_status::ok;
    p.notes = nlohmann::json::object();
    if (busy_at_largest && n == 1048576) p.notes["disturbed"] = "other processes kept 1.8 CPUs busy";
    const double t = 1e-9 * static_cast<double>(n) * (static_cast<double>(n) == slow_at ? 10 : 1);
    std::vector<double> xs;
    for (int i = 0; i < 9; ++i) xs.push_back(t * (1 + 0.002 * i));
    p.metrics["total"] = {"s", summarize(xs), xs};
    v.points.push_back(p);
  }
  return v;
}

TEST(Compare, ARatioOneSidesNoiseCannotExplainIsMarked) {
  const auto c = compare_experiments(linear(), linear(8192), "total", 0.05, 200);
  ASSERT_EQ(c.points.size(), 11u);
  for (const auto& p : c.points) {
    if (p.n == 8192) {
      EXPECT_EQ(p.verdict, "slower");
      EXPECT_EQ(p.caution, "B: off its neighbours (+900%)");
    } else {
      EXPECT_EQ(p.caution, "") << p.n;
    }
  }
  const auto text = render_comparison(c, "A", "B", table_style::text);
  EXPECT_NE(text.find("slower ?"), std::string::npos) << text;
  EXPECT_NE(text.find("?: a ratio the noise cannot explain on one side"), std::string::npos);
  // A busy machine on either side is named with its side; none at all: no caution column.
  const auto busy = compare_experiments(linear(0, true), linear(), "total", 0.05, 200);
  EXPECT_EQ(busy.points.back().caution, "A: ran on a busy machine (other processes kept 1.8 CPUs busy)");
  EXPECT_EQ(render_comparison(compare_experiments(linear(), linear(), "total", 0.05, 200), "A", "B", table_style::text).find("caution"),
            std::string::npos);
}

}  // namespace
}  // namespace ema
