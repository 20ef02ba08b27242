// What to do to settle a fit (report/fits.hpp settle_text, settle_all_text; issue 31, item 5): a
// command to paste for an experiment, the database's path quoted for the shell, and for another
// tool's results what to add to the benchmark.
#include <gtest/gtest.h>

#include "report/fits.hpp"

namespace ema {
namespace {

variant_fit unsettled(double next, double predicted) {
  variant_fit f;
  f.problem = "search";
  f.variant = "seq";
  f.metric = "total";
  f.unit = "s";
  f.budget = 300;  // what a point may take
  f.analysis.emplace();
  f.analysis->verdict.level = fit::verdict_level::tentative;
  f.analysis->verdict.next_size = next;
  f.analysis->verdict.predicted = predicted;
  return f;
}

TEST(Settle, AnExperimentsFitNamesTheCommandThatMeasuresItsNextSize) {
  auto f = unsettled(33554432, 0.008);
  f.origin.experiment = 3;
  EXPECT_EQ(settle_text(f), "ema fit 3 --problem search --variants seq --settle");
  f.origin.db = "my results/it's.db";
  f.metric = "kernel";
  EXPECT_EQ(settle_text(f), "ema fit 3 --db 'my results/it'\\''s.db' --metric kernel --problem search --variants seq --settle");
  f.analysis->verdict.next_size.reset();
  EXPECT_EQ(settle_text(f), "");  // nothing names a size
  f = unsettled(1024, 1);
  f.origin.experiment = 3;
  f.variant = "seq (best k)";  // a best-of curve is no variant to run
  EXPECT_EQ(settle_text(f), "");
}

TEST(Settle, AToolsResultsSayWhatToAddToTheBenchmark) {
  auto f = unsettled(65536, 0.001);
  f.origin.tool = "gbench";
  EXPECT_EQ(settle_text(f), "add 65536 to the benchmark's arguments (->Arg(65536)) and fit its results again");
  f.origin.tool = "hyperfine";
  f.origin.size = "n";
  EXPECT_EQ(settle_text(f), "add 65536 to the values of the parameter 'n' (-L n ...,65536) and fit its results again");
  f.origin.tool = "nvbench";
  EXPECT_NE(settle_text(f).find("the axis 'n'"), std::string::npos);
  f.origin.tool = "csv";
  EXPECT_EQ(settle_text(f), "measure n = 65536, add it to the file and fit it again");
}

TEST(Settle, OneCommandSettlesEveryVariantOfAnExperiment) {
  auto a = unsettled(1 << 20, 0.5), b = unsettled(1 << 22, 1.5), firm = unsettled(1, 1);
  for (auto* f : {&a, &b, &firm}) f->origin.experiment = 2;
  b.variant = "omp";
  firm.analysis->verdict.next_size.reset();
  const auto text = settle_all_text({a, b, firm}, table_style::text);
  EXPECT_EQ(
      text,
      "to settle them: ema fit 2 --problem search --settle   # measures the size named for 2 variants (2 s of runs predicted) and fits again\n");
  b.problem = "sort";  // two problems: the whole experiment
  EXPECT_NE(settle_all_text({a, b}, table_style::text).find("ema fit 2 --settle"), std::string::npos);
  b.problem = "search";
  const auto md = settle_all_text({a, b}, table_style::markdown);
  EXPECT_NE(md.find("To settle them: `ema fit 2 --problem search --settle`"), std::string::npos) << md;
  a.origin.db = b.origin.db = "a`b.db";  // a backtick would end the code span: escaped text instead
  EXPECT_EQ(settle_all_text({a, b}, table_style::markdown).find('`'), settle_all_text({a, b}, table_style::markdown).find("\\`") + 1);
  EXPECT_EQ(settle_all_text({firm}, table_style::text), "");
  // A size predicted to take longer than a point may is left out: `ema fit --settle` would not run it.
  b.analysis->verdict.predicted = 301;
  EXPECT_NE(settle_all_text({a, b}, table_style::text).find("for 1 variant (500 ms of runs predicted)"), std::string::npos)
      << settle_all_text({a, b}, table_style::text);
  a.analysis->verdict.predicted = 400;
  EXPECT_EQ(settle_all_text({a, b}, table_style::text), "");
  // Nor past the experiment's per-point timeout where a larger budget was given (`--budget 10m`).
  a.analysis->verdict.predicted = 120;
  a.budget = b.budget = 600;
  a.timeout = b.timeout = 60;
  EXPECT_EQ(settle_all_text({a, b}, table_style::text), "");
  a.timeout = b.timeout = 300;
  EXPECT_NE(settle_all_text({a, b}, table_style::text).find("for 1 variant (120 s of runs predicted)"), std::string::npos)
      << settle_all_text({a, b}, table_style::text);
}

}  // namespace
}  // namespace ema
