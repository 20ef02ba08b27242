// `ema fit`: fits EMA's equation family to every variant of a stored experiment (or to a CSV of
// data from elsewhere, or to Google Benchmark's, nvbench's or hyperfine's JSON) and prints the groups of equations, the knee, the interval of the leading
// exponent and the held-out check; `--run-tie-breaker`, `--settle` and `--more-sizes` measure the sizes
// that would settle the verdicts (a tie breaker, the size a verdict names, more sizes inside the
// regime) in the same experiment and refit.
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <string_view>

#include "analysis/series_csv.hpp"
#include "inputs/tool_results.hpp"
#include "cli/commands.hpp"
#include "core/registry.hpp"
#include "cli/exit_codes.hpp"
#include "cli/sweep_command.hpp"
#include "core/duration.hpp"
#include "core/errors.hpp"
#include "core/format.hpp"
#include "core/text.hpp"
#include "measure/stats.hpp"
#include "report/fits.hpp"
#include "report/scaling.hpp"
#include "report/view.hpp"
#include "runner/calibrate.hpp"
#include "runner/sweep.hpp"
#include "store/database.hpp"

namespace ema::cli {
namespace {

struct fit_options {
  std::optional<std::int64_t> experiment;
  std::string metric = "total", stat = "median", variants, problems, best = "parsimony";
  std::optional<std::string> csv, budget, size, best_of, work;
  std::vector<std::string> from;  ///< --from FORMAT FILE
  double threshold = 0.05;
  int bootstrap = 200;
  bool json = false, all_equations = false, run_tie_breaker = false, settle = false, more_sizes = false, across_machines = false;
};

fit_request make_request(const fit_options& o) {
  fit_request r;
  r.metric = o.metric;
  r.stat = parse_point_stat(o.stat);
  r.problems = split_commas(o.problems);
  r.variants = split_commas(o.variants);
  r.across_machines = o.across_machines;
  if (o.budget) r.budget = parse_duration(*o.budget);
  if (!(o.threshold > 0 && o.threshold < 1)) throw usage_error(fmt::format("--threshold must be in (0, 1), got {}", o.threshold));
  if (o.bootstrap < 0) throw usage_error("--bootstrap cannot be negative");
  r.options.groups.threshold = o.threshold;
  r.options.bootstrap = o.bootstrap;
  if (o.work) {
    try {
      const auto c = fit::parse_theta(*o.work);
      r.options.work = {[c](double n) { return std::pow(n, c.n) * std::pow(std::log2(n), c.log); }};
    } catch (const std::invalid_argument& e) {
      throw usage_error(fmt::format("--work: {}", e.what()));
    }
  }
  if (o.best == "ema")
    r.options.groups.rule = fit::best_rule::ema;
  else if (o.best != "parsimony")
    throw usage_error(fmt::format("--best must be parsimony or ema, got '{}'", o.best));
  return r;
}

void print(const std::vector<variant_fit>& fits, const nlohmann::json& source, const fit_request& r, const fit_options& o, const std::string& heading,
           const std::vector<variant_scaling>& scaling = {}) {
  if (o.json) {
    auto j = fits_json(fits, source, r);
    if (!scaling.empty()) j["scaling"] = scaling_json(scaling);
    fmt::print("{}\n", json_text(j, 2));
    return;
  }
  print_text(heading + render_fits(fits, table_style::text, o.all_equations) + render_scaling(scaling, table_style::text));
}

void refuse_with_file(const fit_options& o, const char* option) {
  if (o.experiment || o.run_tie_breaker || o.settle || o.more_sizes || !o.variants.empty() || !o.problems.empty())
    throw usage_error(fmt::format(
        "{} fits the file alone; give no experiment, --variants, --problem, --run-tie-breaker, --settle or --more-sizes with it", option));
}

int fit_csv(const fit_options& o, fit_request r) {
  refuse_with_file(o, "--csv");
  if (o.size) throw usage_error("--size names n in another tool's results; a CSV file has its n column");
  std::vector<fit::labelled_series> all;
  try {
    all = fit::read_fit_csv(*o.csv, r.metric);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  const bool plain = all.size() == 1 && all.front().problem.empty();  // the n,value form
  if (plain) r.metric = "value";
  r.options.groups.budget = r.budget.value_or(300);
  std::vector<variant_fit> fits;
  for (auto& s : all) {
    variant_fit f;
    f.problem = s.problem;
    f.variant = s.variant;
    f.params_json = s.params;
    f.metric = r.metric;
    f.budget = r.options.groups.budget;
    f.origin.tool = "csv";
    f.notes.push_back("tie-breaker costs read the values as seconds");
    if (!plain) f.notes.push_back("each point's median, as `ema show --csv` wrote it");
    auto options = r.options;
    // Rows of `ema show --csv` name their problem, variant and parameters: without --work, the
    // work this build's registration declares for them, as `ema fit` on the experiment weighs it.
    if (const auto* problem = !plain && !o.work ? lookup_problem(s.problem) : nullptr) {
      if (auto p = param_set::restore_json(problem->name, problem->params, s.params)) {
        const auto* variant = lookup_variant(s.problem, s.variant);
        options.work = work_floors(*problem, std::make_shared<const param_set>(std::move(*p)), variant ? variant->algorithm : "");
      } else {
        f.notes.push_back(fmt::format("its parameters are not ones {} declares: its work is not weighed", s.problem));
      }
    }
    try {
      f.analysis = fit::analyze(s.data, options);
    } catch (const std::invalid_argument& e) {
      if (plain) throw usage_error(fmt::format("{}: {}", *o.csv, e.what()));
      f.skipped = e.what();
    }
    fits.push_back(std::move(f));
  }
  print(fits, {{"csv", *o.csv}}, r, o, "");
  return exit_code::ok;
}

// `--from gbench|nvbench|hyperfine FILE`: each benchmark at each setting of everything but n is a
// series; a point's value is --stat of its samples, the noise the median relative standard error of
// the points' medians (or the tool's own, where it kept no samples).
int fit_tool(const fit_options& o, fit_request r) {
  refuse_with_file(o, "--from");
  const auto& path = o.from[1];
  tool_results got;
  try {
    const auto tool = parse_result_tool(o.from[0]);
    got = read_tool_results(tool, path, o.size.value_or(""), r.metric);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  r.metric = got.metric;
  r.options.groups.budget = r.budget.value_or(300);
  std::vector<variant_fit> fits;
  for (const auto& s : got.series) {
    variant_fit f;
    f.variant = s.benchmark;
    f.params_json = s.params;
    f.metric = got.metric;
    f.unit = "s";
    f.budget = r.options.groups.budget;
    f.origin.tool = o.from[0];
    f.origin.size = s.size;
    f.notes = s.notes;
    f.notes.insert(f.notes.end(), got.notes.begin(), got.notes.end());
    f.notes.push_back(fmt::format("n is the {} '{}'", o.from[0] == "gbench" ? "argument" : o.from[0] == "nvbench" ? "axis" : "parameter", s.size));
    fit::series data;
    std::vector<double> errors;
    for (const auto& p : s.points) {
      const auto sum = summarize(p.samples);
      const double v = r.stat == point_stat::mean    ? sum.mean
                       : r.stat == point_stat::best  ? sum.min
                       : r.stat == point_stat::worst ? sum.max
                                                     : sum.median;
      if (v > 0 && std::isfinite(v)) data.add(p.n, v);
      const double e = p.samples.size() >= 3 ? median_rse(p.samples) : p.rse;
      if (std::isfinite(e)) errors.push_back(e);
    }
    if (data.size() < s.points.size())
      f.notes.push_back(
          fmt::format("{} of {} points left out: a time of 0 cannot be fitted on relative error", s.points.size() - data.size(), s.points.size()));
    auto options = r.options;
    if (!errors.empty()) options.noise = median(errors);
    try {
      f.analysis = fit::analyze(data, options);
    } catch (const std::invalid_argument& e) {
      f.skipped = e.what();
    }
    fits.push_back(std::move(f));
  }
  print(fits, {{"from", o.from[0]}, {"file", path}}, r, o, "");
  return exit_code::ok;
}

// Which size `ema fit` adds to an experiment for a variant whose verdict is not firm: its smallest
// feasible tie breaker (--run-tie-breaker), or the size the verdict names to settle it (--settle,
// analysis/verdict.hpp).
enum class added_size { tie_breaker, settle };

// The size `how` adds for `f`, or nothing (with a line on stderr saying why).
std::optional<double> size_to_add(const variant_fit& f, added_size how) {
  const auto& vd = f.analysis->verdict;
  if (vd.level == fit::verdict_level::firm) {
    fmt::print(stderr, "ema: {} {}: the verdict is firm; nothing to settle\n", f.problem, f.variant);
    return std::nullopt;
  }
  if (how == added_size::settle) {
    if (!vd.next_size)
      fmt::print(stderr, "ema: {} {}: {}, and no size of the data's range would settle it\n", f.problem, f.variant, fit::to_string(vd.level));
    return vd.next_size;
  }
  double n = INFINITY;
  for (const auto& t : f.analysis->groups.distinguishable) n = std::min(n, *t.n);
  if (!std::isfinite(n)) {
    fmt::print(stderr, "ema: {} {}: {}, but no tie breaker fits the budget of {}{}\n", f.problem, f.variant, fit::to_string(vd.level),
               format_time(f.budget), vd.next_size ? fmt::format("; n = {:.0f} would settle it (--settle runs it)", *vd.next_size) : std::string());
    return std::nullopt;
  }
  return n;
}

// The memory a variant's stored points used, per size (ascending): what predicts a larger point's
// (runner/calibrate.hpp predict_bytes). Input instances of one size: the largest.
std::vector<observation> memory_observed(const experiment_view& v, const variant_fit& f) {
  std::map<std::uint64_t, observation> by_n;
  for (const auto& p : v.points) {
    const auto& r = p.record;
    if (r.problem != f.problem || r.variant != f.variant || r.params_json != f.params_json || r.status != point_status::ok) continue;
    auto& o = by_n[r.n];
    o.n = static_cast<double>(r.n);
    if (const double host = p.median("host_peak_rss"); std::isfinite(host)) o.host_bytes = std::max(o.host_bytes, host);
    if (auto it = p.metrics.find("device_peak"); it != p.metrics.end() && !it->second.values.empty())
      o.device_bytes = std::max(o.device_bytes, *std::max_element(it->second.values.begin(), it->second.values.end()));
  }
  std::vector<observation> obs;
  for (const auto& [n, o] : by_n) obs.push_back(o);
  return obs;
}

// A fit's parameters as the plan takes them.
param_set params_of(const variant_fit& f) {
  param_map values;
  auto pj = nlohmann::json::parse(f.params_json, nullptr, false);
  if (pj.is_object())
    for (const auto& [k, v] : pj.items()) values[k] = v.get<std::string>();
  return param_set::from_map(values);
}

// Runs the points added to a reopened experiment since it had `before`, stored in its plan; where
// none was added, puts its state back and says `none` on stderr. False then.
bool run_additions(database& db, std::int64_t experiment_id, reopened_experiment& r, std::size_t before, const common_options& common,
                   std::string_view none) {
  if (r.p.points.size() == before) {
    db.set_experiment_state(experiment_id, r.record.state);
    fmt::print(stderr, "ema: no variant has {} to run\n", none);
    return false;
  }
  db.set_experiment_plan(experiment_id, r.p.to_json());
  output_options quiet;
  quiet.quiet = true;
  carry_out(db, experiment_id, r.p, common, quiet);
  return true;
}

// Adds, for each variant whose verdict is not firm, the size `how` chooses to the experiment and
// runs it, where the memory its smaller points used predicts it fits; false when there was none to run.
bool run_added_sizes(const common_options& common, std::int64_t experiment_id, const std::vector<variant_fit>& fits, added_size how) {
  auto db = database::open_write(common.db);
  auto reopened = reopen_experiment(db, experiment_id);
  auto& p = reopened.p;
  const auto before = p.points.size();
  const char* what = how == added_size::settle ? "the size that would settle it" : "the tie breaker";
  const auto stored = load_experiment(db, experiment_id);
  for (const auto& f : fits) {
    if (!f.analysis) continue;
    const auto n = size_to_add(f, how);
    if (!n) continue;
    const auto params = params_of(f);
    auto size = static_cast<std::uint64_t>(std::llround(*n));
    if (const auto* problem = p.external ? nullptr : lookup_problem(f.problem); problem && problem->size_near)
      size = problem->size_near(params, size);  // the nearest size its inputs can have (kron graphs: a power of two)
    std::string backend;
    for (const auto& pt : stored.points)
      if (pt.record.problem == f.problem && pt.record.variant == f.variant) backend = pt.record.backend;
    if (const auto refusal = memory_refusal(memory_observed(stored, f), static_cast<double>(size), backend); !refusal.empty()) {
      fmt::print(stderr, "ema: {} {}: {}, n = {}, {}: not run\n", f.problem, f.variant, what, size, refusal);
      continue;
    }
    // A size whose one run the best equation predicts to take longer than a point may (the budget,
    // as for a tie breaker, and at most the experiment's per-point timeout) would only run into
    // the timeout.
    if (how == added_size::settle && settle_predicted_too_long(f)) {
      fmt::print(stderr,
                 "ema: {} {}: {}, n = {}, would take about {} a run (the best equation's prediction), beyond the {} a point may take{}: not run\n",
                 f.problem, f.variant, what, size, format_time(*f.analysis->verdict.predicted), format_time(settle_limit(f)),
                 f.budget < f.timeout ? fmt::format(" (--budget allows up to the experiment's per-point timeout, {})", format_time(f.timeout))
                                      : std::string(" (the experiment's per-point timeout)"));
      continue;
    }
    fmt::print(stderr, "ema: {} {}: running {}, n = {}\n", f.problem, f.variant, what, size);
    p.add(f.problem, f.variant, size, params, how == added_size::settle ? "settle" : "tie-breaker");
  }
  return run_additions(db, experiment_id, reopened, before, common,
                       how == added_size::settle ? "a size that would settle it" : "a feasible tie breaker");
}

// Adds, for each variant whose verdict says how many times as many sizes over its fitted regime
// would exclude the classes left beside the answer (analysis/verdict.hpp, more_sizes), that many
// between the regime's sizes (the geometric midpoints of the widest gaps in log n, as a calibrated
// sweep fills its range: runner/calibrate.hpp fill_sizes, each the nearest size the problem's
// inputs can have) and runs them; false when there were none to run. Inside the range measured,
// no point needs more memory or time than one already run.
bool run_more_sizes(const common_options& common, std::int64_t experiment_id, const std::vector<variant_fit>& fits) {
  constexpr int most_added = 48;  // a variant's points at most, whatever the factor asks
  auto db = database::open_write(common.db);
  auto reopened = reopen_experiment(db, experiment_id);
  auto& p = reopened.p;
  const auto before = p.points.size();
  for (const auto& f : fits) {
    if (!f.analysis) continue;
    const auto& a = *f.analysis;
    if (a.verdict.level == fit::verdict_level::firm) continue;
    if (!a.verdict.more_sizes) {
      fmt::print(stderr, "ema: {} {}: {}; more sizes over the same range would not settle it{}\n", f.problem, f.variant,
                 fit::to_string(a.verdict.level), a.verdict.next_size ? " (--settle runs the size it names)" : "");
      continue;
    }
    const auto params = params_of(f);
    const auto* problem = p.external ? nullptr : lookup_problem(f.problem);
    size_snap snap;
    if (problem && problem->size_near) snap = [&](std::uint64_t n) { return problem->size_near(params, n); };
    std::vector<std::uint64_t> regime;
    for (double n : a.data.sizes())
      if (n >= a.regime_from) regime.push_back(static_cast<std::uint64_t>(std::llround(n)));
    const auto added = more_sizes(regime, *a.verdict.more_sizes, most_added, snap);
    if (added.empty()) {
      fmt::print(stderr, "ema: {} {}: no size its inputs can have lies between those of its regime\n", f.problem, f.variant);
      continue;
    }
    fmt::print(stderr, "ema: {} {}: running {} more sizes between n = {} and n = {} ({} in the regime, about {:.1f} times as many asked)\n",
               f.problem, f.variant, added.size(), format_size(static_cast<double>(regime.front())), format_size(static_cast<double>(regime.back())),
               regime.size() + added.size(), *a.verdict.more_sizes);
    for (auto n : added) p.add(f.problem, f.variant, n, params, "more-sizes");
  }
  return run_additions(db, experiment_id, reopened, before, common, "more sizes");
}

}  // namespace

action add_fit(CLI::App& app, common_options& common) {
  auto o = std::make_shared<fit_options>();
  app.add_option("experiment", o->experiment, "experiment number (default: the newest)");
  app.add_option("--db", common.db, "results database")->capture_default_str();
  app.add_option("--metric", o->metric, "metric to fit: total, kernel, h2d, d2h, host_peak_rss, energy_gpu, ...")->capture_default_str();
  app.add_option("--stat", o->stat, "one value per point: median, mean, best (min) or worst (max) of its samples")->capture_default_str();
  app.add_option("--problem", o->problems, "comma-separated problems to fit (default: all)");
  app.add_option("--variants", o->variants, "comma-separated variants to fit (default: all)");
  app.add_option("--csv", o->csv, "fit a CSV file instead: a header line n,value (a repeated n is a replicate), or what ema show --csv writes");
  app.add_option("--from", o->from, "fit another tool's results instead: --from gbench|nvbench|hyperfine FILE.json (or --from csv FILE)")
      ->expected(2)
      ->type_name("FORMAT FILE");
  app.add_option("--size", o->size,
                 "with --from: the argument (gbench), axis (nvbench) or parameter (hyperfine) that is n (default: the first "
                 "argument, the one int64 axis that varies, the one parameter)");
  app.add_flag("--json", o->json, "print the result as JSON (schema ema.fit/1) on stdout");
  app.add_option("--threshold", o->threshold, "equivalence threshold, relative (default 0.05)");
  app.add_option("--budget", o->budget, "time a tie-breaker point may take, e.g. 2m (default: the experiment's budget, else its per-point timeout)");
  app.add_option("--bootstrap", o->bootstrap, "bootstrap resamples for the interval and band (default 200; 0: none)");
  app.add_option("--best", o->best, "rule for the best equation: parsimony (default) or ema (the source's literal rule)");
  app.add_option("--best-of", o->best_of,
                 "also fit, for a parameter swept as an axis, the curve of its best value at each size (per variant and "
                 "setting of the other parameters)");
  app.add_option("--work", o->work,
                 "with --csv or --from: the class of the work the program must do (e.g. n, n log n): an answer that grows slower "
                 "is not firm (an experiment's problems declare theirs)");
  app.add_flag("--all-equations", o->all_equations, "list every equivalent equation, not the first 8");
  app.add_flag("--run-tie-breaker", o->run_tie_breaker,
               "run each variant's smallest feasible tie-breaker size, store it in the experiment and refit");
  app.add_flag("--settle", o->settle,
               "run, for each variant whose verdict is not firm, the size its verdict names to settle it, store it in the experiment and "
               "refit");
  app.add_flag("--more-sizes", o->more_sizes,
               "run, for each variant whose verdict says how many times as many sizes over the same range would exclude the classes "
               "left, that many between its sizes, store them in the experiment and refit");
  app.add_flag("--across-machines", o->across_machines,
               "fit one curve through points that ran on unlike machines (merged shards); refused by default");
  return [o, &common] {
    auto r = make_request(*o);
    r.db = common.db_to_print();
    if (!o->from.empty()) {
      if (o->csv) throw usage_error("give --csv FILE or --from FORMAT FILE, not both");
      if (o->from[0] == "csv") {
        o->csv = o->from[1];
        return fit_csv(*o, r);
      }
      return fit_tool(*o, r);
    }
    if (o->size) throw usage_error("--size goes with --from gbench|nvbench|hyperfine FILE");
    if (o->work && !o->csv) throw usage_error("--work goes with --csv or --from: an experiment's problems declare their work");
    if (o->csv) return fit_csv(*o, r);
    std::optional<experiment_view> view;
    {
      auto db = database::open_read(common.db);
      view = chosen_experiment(db, o->experiment);
    }
    auto fits = fit_experiment(*view, r);
    auto add_best = [&] {
      if (!o->best_of) return;
      auto best = fit_best_curves(*view, r, *o->best_of);
      fits.insert(fits.end(), std::make_move_iterator(best.begin()), std::make_move_iterator(best.end()));
    };
    if (int(o->run_tie_breaker) + int(o->settle) + int(o->more_sizes) > 1)
      throw usage_error("give one of --run-tie-breaker, --settle and --more-sizes: each adds sizes to the experiment and fits again");
    if (o->run_tie_breaker || o->settle || o->more_sizes) {
      if (o->more_sizes ? run_more_sizes(common, view->experiment.id, fits)
                        : run_added_sizes(common, view->experiment.id, fits, o->settle ? added_size::settle : added_size::tie_breaker)) {
        auto db = database::open_read(common.db);
        view = load_experiment(db, view->experiment.id);
        fits = fit_experiment(*view, r);
      }
    }
    add_best();  // after the tie breakers: a best curve is no variant to run
    const auto heading = fmt::format("Experiment {} — {} ({} of each point's samples)\n", view->experiment.id, r.metric, to_string(r.stat));
    // Variants measured at several processor counts (--threads) are also fitted in n and p.
    print(fits, {{"experiment", view->experiment.id}, {"db", common.db}}, r, *o, heading, fit_scaling(*view, r));
    return exit_code::ok;
  };
}

}  // namespace ema::cli
