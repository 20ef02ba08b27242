// `ema compare A B`: the same points of two experiments side by side (report/compare.hpp).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <optional>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/outputs.hpp"
#include "core/errors.hpp"
#include "core/text.hpp"
#include "report/compare.hpp"
#include "report/exports.hpp"
#include "store/database.hpp"

namespace ema::cli {
namespace {

struct compare_options {
  std::string a, b, metric = "total", threshold = "5%";
  std::optional<std::string> fail_if_slower, md;
  bool json = false, fits = false;
};

/// "5%" (a percentage, up to 1000%) or "0.05" (a fraction, up to 1) as a fraction; usage_error
/// naming the option otherwise. A bare number above 1 is refused, not read as a multiple: "5"
/// meant as five percent would otherwise let a five-fold slowdown pass.
double fraction(const std::string& text, const char* option) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  double v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc{} || end != t.data() + t.size() || !std::isfinite(v))
    throw usage_error(fmt::format("{} must be a fraction or a percentage (0.05, 5%), not '{}'", option, one_line(text)));
  if (!percent && v > 1)
    throw usage_error(fmt::format("{} {}: a bare number is a fraction of at most 1; write {}% for {} percent, or a percentage up to 1000%", option,
                                  one_line(text), t, t));
  if (percent) v /= 100;
  if (!(v > 0 && v <= 10)) throw usage_error(fmt::format("{} must lie in (0, 1000%], not '{}'", option, one_line(text)));
  return v;
}

/// "ID" (in --db) or "DB:ID".
std::pair<std::string, std::int64_t> experiment_spec(const std::string& spec, const std::string& db) {
  const auto colon = spec.rfind(':');
  const std::string path = colon == std::string::npos ? db : spec.substr(0, colon);
  const std::string id = colon == std::string::npos ? spec : spec.substr(colon + 1);
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), n);
  if (id.empty() || ec != std::errc{} || end != id.data() + id.size() || n < 1 || path.empty())
    throw usage_error(fmt::format("'{}' names no experiment: give its number (in --db) or DB:NUMBER", valid_utf8(spec)));
  return {path, n};
}

experiment_view load(const std::pair<std::string, std::int64_t>& spec) {
  auto db = database::open_read(spec.first);
  return chosen_experiment(db, spec.second);
}

}  // namespace

action add_compare(CLI::App& app, common_options& common) {
  auto o = std::make_shared<compare_options>();
  app.add_option("a", o->a, "the experiment compared against: its number (in --db) or DB:NUMBER")->required();
  app.add_option("b", o->b, "the experiment compared: its number (in --db) or DB:NUMBER")->required();
  app.add_option("--db", common.db, "results database of experiments named by number")->capture_default_str();
  app.add_option("--metric", o->metric, "the metric compared")->capture_default_str();
  app.add_option("--threshold", o->threshold, "a ratio within 1 ± this is the same (0.05 or 5%)")->capture_default_str();
  app.add_option("--fail-if-slower", o->fail_if_slower,
                 "exit 1 when a point of B is slower than A by more than this, beyond its interval (0.05 or 5%)");
  app.add_flag("--fits", o->fits, "also fit every variant of both and compare their classes, verdicts and exponents");
  app.add_flag("--json", o->json, "print the comparison as JSON (schema ema.compare/1)");
  app.add_option("--md", o->md, "also write the comparison as Markdown to FILE, - for stdout");
  return [o, &common] {
    const double threshold = fraction(o->threshold, "--threshold");
    // The gate's bar (NaN: no gate), checked before anything is read.
    const double fail = o->fail_if_slower ? fraction(*o->fail_if_slower, "--fail-if-slower") : NAN;
    const auto sa = experiment_spec(o->a, common.db), sb = experiment_spec(o->b, common.db);
    check_outputs(sa.first, given_outputs({{"--md", &o->md}}));
    check_outputs(sb.first, given_outputs({{"--md", &o->md}}));
    const auto a = load(sa), b = load(sb);
    auto c = compare_experiments(a, b, o->metric, threshold);
    if (o->fits) compare_fits(c, a, b);
    if (c.points.empty() && c.only_a.empty() && c.only_b.empty())
      throw usage_error(fmt::format("neither experiment has a point of metric '{}' that ran ok", o->metric));
    const std::string an = fmt::format("A ({})", o->a), bn = fmt::format("B ({})", o->b);
    if (o->json)
      print_text(json_text(comparison_json(c, o->a, o->b), 2) + "\n");
    else if (o->md != "-")
      print_text(render_comparison(c, an, bn, table_style::text));
    if (o->md) write_text(*o->md, render_comparison(c, an, bn, table_style::markdown));
    if (c.points.empty()) {  // a comparison (and a gate) that compared nothing must not pass
      fmt::print(stderr, "ema: {} and {} have no point of metric '{}' in common ({} only in A, {} only in B): nothing was compared\n", one_line(o->a),
                 one_line(o->b), one_line(o->metric), c.only_a.size(), c.only_b.size());
      return exit_code::usage;
    }
    if (std::isfinite(fail)) {
      int slower = 0, cautioned = 0;
      for (const auto& p : c.points)
        if (p.lo > 1 + fail) ++slower, cautioned += !p.caution.empty();
      if (slower) {
        std::fprintf(
            stderr, "ema: %d point%s of %s slower than %s by more than %s%s\n", slower, slower == 1 ? "" : "s", o->b.c_str(), o->a.c_str(),
            o->fail_if_slower->c_str(),
            cautioned ? fmt::format(" ({} of them marked ?: a disturbance on one side may explain it; measure again)", cautioned).c_str() : "");
        return exit_code::points_failed;
      }
    }
    return exit_code::ok;
  };
}

}  // namespace ema::cli
