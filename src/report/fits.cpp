#include "report/fits.hpp"

#include "analysis/work_model.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <fmt/ranges.h>
#include <limits>
#include <map>
#include <tuple>

#include "core/backend.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/registry.hpp"
#include "core/text.hpp"
#include "measure/stats.hpp"
#include "core/format.hpp"

namespace ema {

double point_value(const metric_view& m, point_stat s) {
  switch (s) {
    case point_stat::median:
      return m.stats.median;
    case point_stat::mean:
      return m.stats.mean;
    case point_stat::best:
      return m.stats.min;
    case point_stat::worst:
      return m.stats.max;
  }
  return NAN;
}

/// Whether --variants names this stored variant, by its name or a former one (registry.hpp,
/// renamed_variants: `ema fit --variants seed-seq` on a database written before the rename).
/// Everything passes an empty filter.
bool names_variant(const std::vector<std::string>& filter, const std::string& problem, const std::string& variant) {
  return filter.empty() ||
         std::any_of(filter.begin(), filter.end(), [&](const std::string& n) { return current_variant_name(problem, n) == variant; });
}

namespace {

// Seconds one point of a variant takes to run at n: the minimum-error equation of its `total`
// times the runs a point makes (warm-up and the least number of timed runs).
std::function<double(double)> cost_model(const experiment_view& v, const std::string& problem, const std::string& params_json,
                                         const std::string& variant) {
  const auto total = variant_series(v, problem, params_json, variant, "total", point_stat::median);
  if (total.sizes().size() < 3) return {};
  const auto& reps = v.experiment.plan.value("repetitions", nlohmann::json::object());
  const double runs = reps.value("warmup", 1) + (reps.contains("fixed") ? reps["fixed"].get<int>() : reps.value("min_reps", 5));
  fit::family_options family;
  family.free_exponents = false;
  try {
    const auto g = fit::select_groups(fit::fit_family(total, family), total.sizes(), {});
    return [runs, eq = g.min_error](double n) { return runs * eq(n); };
  } catch (const std::exception&) {
    return {};
  }
}

double point_timeout(const experiment_record& e) { return e.plan.value("timeout", 300.0); }

double default_budget(const experiment_record& e) {
  if (e.plan.contains("budget") && e.plan["budget"].is_number()) return e.plan["budget"].get<double>();
  return point_timeout(e);
}

}  // namespace

point_stat parse_point_stat(const std::string& s) {
  if (s == "median") return point_stat::median;
  if (s == "mean" || s == "average") return point_stat::mean;
  if (s == "best" || s == "min") return point_stat::best;
  if (s == "worst" || s == "max") return point_stat::worst;
  throw usage_error(fmt::format("unknown statistic '{}'; valid: median, mean, best, worst", s));
}

const char* to_string(point_stat s) {
  switch (s) {
    case point_stat::median:
      return "median";
    case point_stat::mean:
      return "mean";
    case point_stat::best:
      return "best";
    case point_stat::worst:
      return "worst";
  }
  return "?";
}

std::set<std::string> experiment_metrics(const experiment_view& v) {
  std::set<std::string> out;
  for (const auto& p : v.points)
    for (const auto& [name, m] : p.metrics)
      if (m.stats.count) out.insert(name);
  return out;
}

/// The relative standard error of a variant's fitted values: per point, that of the median of its
/// repetitions (measure/stats.hpp, median_rse), then the median over the points; NaN without points
/// of three or more samples.
double repetition_noise(const experiment_view& v, const std::string& problem, const std::string& params_json, const std::string& variant,
                        const std::string& metric) {
  std::vector<double> errors;
  for (const auto& p : v.points) {
    const auto& r = p.record;
    if (r.problem != problem || r.params_json != params_json || r.variant != variant || r.status != point_status::ok) continue;
    auto it = p.metrics.find(metric);
    if (it == p.metrics.end()) continue;
    if (const double e = median_rse(it->second.values); std::isfinite(e)) errors.push_back(e);
  }
  return errors.empty() ? std::numeric_limits<double>::quiet_NaN() : median(errors);
}

fit::series variant_series(const experiment_view& v, const std::string& problem, const std::string& params_json, const std::string& variant,
                           const std::string& metric, point_stat stat, std::vector<std::string>* notes) {
  fit::series s;
  int dropped = 0, failed = 0;
  for (const auto& p : v.points) {
    const auto& r = p.record;
    if (r.problem != problem || r.params_json != params_json || r.variant != variant) continue;
    if (r.status != point_status::ok) {
      failed += r.status != point_status::skipped;
      continue;
    }
    auto it = p.metrics.find(metric);
    if (it == p.metrics.end() || !it->second.stats.count) continue;
    const double value = point_value(it->second, stat);
    if (!(value > 0) || !std::isfinite(value) || r.n == 0) {
      ++dropped;
      continue;
    }
    s.add(static_cast<double>(r.n), value);
  }
  if (notes && dropped)
    notes->push_back(fmt::format("{} point{} left out: a value of 0 or below cannot be fitted on relative error", dropped, dropped == 1 ? "" : "s"));
  if (notes && failed) notes->push_back(fmt::format("{} point{} that did not run ok left out", failed, failed == 1 ? "" : "s"));
  if (notes) {
    std::set<std::uint64_t> busy;
    int aside = 0;
    for (const auto& p : v.points)
      if (p.record.problem == problem && p.record.params_json == params_json && p.record.variant == variant && p.record.status == point_status::ok &&
          disturbed(p))
        busy.insert(p.record.n);
    int rounds = 0;  // of them, slower rounds of a point (--rounds)
    for (const auto& x : v.set_aside)
      if (x.point.record.problem == problem && x.point.record.params_json == params_json && x.point.record.variant == variant)
        (x.why.ends_with("(--rounds)") ? rounds : aside) += 1;
    if (!busy.empty()) {
      std::vector<std::string> sizes;
      for (auto n : busy) sizes.push_back(format_size(static_cast<double>(n)));
      notes->push_back(
          fmt::format("the machine was busy while n = {} ran (other processes took the CPUs it needed); `ema run "
                      "--rerun-noisy` measures {} again",
                      fmt::join(sizes, ", "), busy.size() == 1 ? "it" : "them"));
    }
    if (aside)
      notes->push_back(
          fmt::format("{} earlier measurement{} of its points set aside (measured again, or disturbed where a quiet one "
                      "exists); they stay in the database",
                      aside, aside == 1 ? "" : "s"));
    if (rounds)
      notes->push_back(
          fmt::format("{} slower round{} of its points set aside: each point's quickest of its rounds is fitted (--rounds); "
                      "they stay in the database",
                      rounds, rounds == 1 ? "" : "s"));
  }
  return s;
}

namespace {

/// One fitted series of an experiment: a variant at one parameter set.
struct series_key {
  std::string problem, params, variant, backend;
  bool operator==(const series_key&) const = default;
  bool holds(const point_view& p) const { return p.record.problem == problem && p.record.params_json == params && p.record.variant == variant; }
};

/// The experiment's series in plan order; usage_error for a --problem or --variant it lacks.
std::vector<series_key> series_of(const experiment_view& v, const fit_request& r) {
  std::vector<series_key> groups;
  for (const auto& p : v.points) {
    const auto& rec = p.record;
    series_key key{rec.problem, rec.params_json, rec.variant, rec.backend};
    if (std::find(groups.begin(), groups.end(), key) == groups.end()) groups.push_back(key);
  }
  for (const auto* filter : {&r.problems, &r.variants})
    for (const auto& name : *filter) {
      bool found = false;
      std::vector<std::string> has;  // what the experiment has instead, in plan order
      for (const auto& g : groups) {
        const auto& what = filter == &r.problems ? g.problem : g.variant;
        found |= filter == &r.problems ? name == what : names_variant({name}, g.problem, what);
        if (std::find(has.begin(), has.end(), what) == has.end()) has.push_back(what);
      }
      if (!found)
        throw usage_error(fmt::format("experiment {} has no {} '{}'; it has: {}", v.experiment.id, filter == &r.problems ? "problem" : "variant",
                                      name, fmt::join(has, ", ")));
    }
  return groups;
}

/// Why a series is not fitted as one curve (its points ran on unlike machines, ema merge), or ""
/// with a note where --across-machines fits it anyway.
std::string across_machines(const experiment_view& v, const series_key& g, const fit_request& r, variant_fit& f) {
  std::set<std::string> kinds;
  for (const auto& p : v.points)
    if (g.holds(p) && p.notes.is_object() && p.notes.contains("machine") && p.notes["machine"].is_string())
      kinds.insert(p.notes["machine"].get<std::string>());
  if (kinds.size() <= 1) return "";
  const auto which = fmt::format("{} kinds of machine ({})", kinds.size(), fmt::join(kinds, "; "));
  if (!r.across_machines)
    return fmt::format(
        "its points ran on {}: one curve across unlike machines mixes their speeds; fit each machine's shards apart, "
        "or pass --across-machines",
        which);
  f.notes.push_back("fitted across " + which + " (--across-machines)");
  return "";
}

/// Fits one series whose data are in hand: the options from the request, the points' noise and the
/// problem's work model; the size that would settle the verdict as the problem can run it (kron
/// graphs: a power of two), and what the best equation predicts there.
void fit_series(variant_fit& f, const experiment_view& v, const series_key& g, const fit_request& r, const fit::series& data) {
  auto options = r.options;
  options.noise = repetition_noise(v, g.problem, g.params, g.variant, r.metric);
  // The stored parameters as the problem declares them (none where they were changed by hand).
  const auto* desc = lookup_problem(g.problem);
  std::shared_ptr<param_set> declared;
  if (desc) {
    if (auto p = param_set::restore_json(desc->name, desc->params, g.params))
      declared = std::make_shared<param_set>(std::move(*p));
    else
      f.notes.push_back(fmt::format("its stored parameters are not ones {} declares: its work is not weighed", g.problem));
  }
  // The work model (analysis/work_model.hpp), with the algorithm as the points recorded it, so
  // that every build of ema (with CUDA or without) fits the same.
  if (desc && declared && r.metric != "host_peak_rss")
    fit::add_work_model(options, *desc, declared, stored_algorithm(v, g.problem, g.variant), v.experiment.machine, g.backend, data.sizes().back());
  options.groups.budget = f.budget;
  options.groups.cost = cost_model(v, g.problem, g.params, g.variant);
  if (!options.groups.cost) f.notes.push_back("tie-breaker costs read the fitted metric itself as seconds");
  try {
    f.analysis = fit::analyze(data, options);
  } catch (const std::invalid_argument& e) {
    f.skipped = e.what();
  }
  if (f.analysis && f.analysis->verdict.next_size && desc && declared && desc->size_near) {
    auto& vd = f.analysis->verdict;
    const auto n = desc->size_near(*declared, static_cast<std::uint64_t>(std::llround(std::min(*vd.next_size, 0x1p62))));
    vd.next_size = static_cast<double>(n);
    vd.predicted = f.analysis->groups.best(static_cast<double>(n));
  }
}

}  // namespace

std::vector<variant_fit> fit_experiment(const experiment_view& v, const fit_request& r) {
  const auto metrics = experiment_metrics(v);
  if (!metrics.count(r.metric))
    throw usage_error(fmt::format("experiment {} has no samples of metric '{}'; it has: {}", v.experiment.id, r.metric, fmt::join(metrics, ", ")));
  auto selected = [](const std::vector<std::string>& filter, const std::string& name) {
    return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
  };
  std::vector<variant_fit> out;
  const auto& gpus = v.experiment.machine.value("gpus", nlohmann::json::array());
  for (const auto& g : series_of(v, r)) {
    if (!selected(r.problems, g.problem) || !names_variant(r.variants, g.problem, g.variant)) continue;
    variant_fit f;
    f.problem = g.problem;
    f.variant = g.variant;
    f.backend = g.backend;
    f.params_json = g.params;
    f.metric = r.metric;
    f.unit = find_metric(r.metric).unit;
    f.budget = r.budget ? *r.budget : default_budget(v.experiment);
    f.timeout = point_timeout(v.experiment);
    f.origin.experiment = v.experiment.id;
    f.origin.db = r.db;
    if (const int used = devices_used(g.backend, static_cast<int>(gpus.size())); used > 0) {
      double threads = 0;
      for (int i = 0; i < used; ++i) threads += gpus[static_cast<std::size_t>(i)].value("resident_threads", 0.0);
      // In a green context of k SMs (launch.sms), the threads of those k alone.
      const auto params = nlohmann::json::parse(g.params, nullptr, false);
      if (const double all = gpus.empty() ? 0.0 : gpus[0].value("sm_count", 0.0);
          used == 1 && all > 0 && params.is_object() && params.contains("launch.sms") && params["launch.sms"].is_string())
        threads *= std::stod(params["launch.sms"].get<std::string>()) / all;
      if (threads > 0) f.resident_threads = threads;
    }
    // A variant that does not report the metric at all (a CPU variant's kernel time) has nothing
    // to fit (unless it was asked for by name); one whose points all failed is reported as not fitted.
    const bool reports = std::any_of(v.points.begin(), v.points.end(), [&](const auto& p) { return g.holds(p) && p.metrics.count(r.metric); });
    if (!reports && r.variants.empty()) continue;
    f.skipped = across_machines(v, g, r, f);
    const auto data = f.skipped.empty() ? variant_series(v, g.problem, g.params, g.variant, r.metric, r.stat, &f.notes) : fit::series{};
    if (f.skipped.empty() && data.size() == 0) f.skipped = fmt::format("no point of {} that ran ok has samples of {}", g.variant, r.metric);
    if (f.skipped.empty()) fit_series(f, v, g, r, data);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<variant_fit> fit_best_curves(const experiment_view& v, const fit_request& r, const std::string& key) {
  // (problem, other parameters, variant) -> n -> value of the axis -> point values (instances).
  using curve_key = std::tuple<std::string, std::string, std::string>;
  std::map<curve_key, std::map<std::uint64_t, std::map<std::string, std::vector<double>>>> curves;
  std::vector<curve_key> order;
  std::map<curve_key, std::string> backends;
  for (const auto& p : v.points) {
    const auto& rec = p.record;
    if (rec.status != point_status::ok || !p.params.is_object() || !p.params.contains(key)) continue;
    if (!r.problems.empty() && std::find(r.problems.begin(), r.problems.end(), rec.problem) == r.problems.end()) continue;
    if (!names_variant(r.variants, rec.problem, rec.variant)) continue;
    auto it = p.metrics.find(r.metric);
    if (it == p.metrics.end() || !it->second.stats.count) continue;
    auto others = p.params;
    others.erase(key);
    const curve_key k{rec.problem, others.dump(), rec.variant};
    if (!curves.count(k)) order.push_back(k), backends[k] = rec.backend;
    const auto value = p.params[key].is_string() ? p.params[key].get<std::string>() : p.params[key].dump();
    curves[k][rec.n][value].push_back(point_value(it->second, r.stat));
  }
  std::vector<variant_fit> out;
  for (const auto& k : order) {
    const auto& by_n = curves.at(k);
    bool swept = false;
    fit::series data;
    std::map<std::string, int> chosen;
    for (const auto& [n, by_value] : by_n) {
      swept |= by_value.size() > 1;
      double best = INFINITY;
      std::string which;
      for (const auto& [value, xs] : by_value)
        if (const double m = median(xs); m < best) best = m, which = value;
      if (best > 0 && std::isfinite(best)) {
        data.add(static_cast<double>(n), best);
        ++chosen[which];
      }
    }
    if (!swept) continue;
    variant_fit f;
    f.problem = std::get<0>(k);
    f.variant = fmt::format("{} (best {})", std::get<2>(k), key);
    f.backend = backends[k];
    f.params_json = std::get<1>(k);
    f.metric = r.metric;
    f.unit = find_metric(r.metric).unit;
    f.budget = r.budget ? *r.budget : default_budget(v.experiment);
    f.timeout = point_timeout(v.experiment);
    std::vector<std::string> counts;
    for (const auto& [value, count] : chosen) counts.push_back(fmt::format("{}={} at {} size{}", key, value, count, count == 1 ? "" : "s"));
    f.notes.push_back(fmt::format("each size at its best {}: {}", key, fmt::join(counts, ", ")));
    auto options = r.options;
    options.groups.budget = f.budget;
    try {
      f.analysis = fit::analyze(data, options);
    } catch (const std::invalid_argument& e) {
      f.skipped = e.what();
    }
    out.push_back(std::move(f));
  }
  if (out.empty())
    throw usage_error(fmt::format("experiment {} has no problem whose points ran at two or more values of '{}'", v.experiment.id, key));
  return out;
}

nlohmann::json fits_json(const std::vector<variant_fit>& fits, const nlohmann::json& source, const fit_request& r) {
  nlohmann::json out = {{"schema", "ema.fit/1"},
                        {"source", source},
                        {"metric", r.metric},
                        {"stat", to_string(r.stat)},
                        {"threshold", r.options.groups.threshold},
                        {"best_rule", r.options.groups.rule == fit::best_rule::ema ? "ema" : "parsimony"},
                        {"fits", nlohmann::json::array()}};
  for (const auto& f : fits) {
    nlohmann::json j = f.analysis ? fit::to_json(*f.analysis) : nlohmann::json::object();
    j["problem"] = f.problem;
    j["variant"] = f.variant;
    j["backend"] = f.backend;
    auto params = nlohmann::json::parse(f.params_json, nullptr, false);
    j["params"] = params.is_object() ? params : nlohmann::json::object();
    j["metric"] = f.metric;
    j["unit"] = f.unit;
    j["budget_s"] = f.budget;
    j["notes"] = f.notes;
    j["skipped"] = f.analysis ? nlohmann::json(nullptr) : nlohmann::json(f.skipped);
    j["gpu_resident_threads"] = f.resident_threads ? nlohmann::json(*f.resident_threads) : nlohmann::json(nullptr);
    out["fits"].push_back(std::move(j));
  }
  return out;
}

namespace {

/// `ema fit E [--db DB] [--metric M]`: the start of a command that acts on the fit's experiment.
std::string fit_command(const fit_origin& o, const std::string& metric) {
  std::string out = fmt::format("ema fit {}", *o.experiment);
  if (!o.db.empty()) out += " --db " + shell_word(o.db);
  if (metric != "total") out += " --metric " + shell_word(metric);
  return out;
}

/// A command as Markdown code (as it is in text), or as escaped text where a backtick in it (a
/// database's path) would end the code span.
std::string code_text(const std::string& command, table_style style) {
  if (style != table_style::markdown) return command;
  return command.find('`') == std::string::npos ? fmt::format("`{}`", command) : stored_text(command, style);
}

}  // namespace

std::string settle_text(const variant_fit& f) {
  if (!f.analysis || !f.analysis->verdict.next_size) return {};
  const auto n = fmt::format("{:.0f}", *f.analysis->verdict.next_size);
  const auto& o = f.origin;
  if (o.experiment) {
    // A best-of curve ("seq (best k)") is no variant to run.
    if (f.variant.find(" (best ") != std::string::npos) return {};
    return fmt::format("{} --problem {} --variants {} --settle", fit_command(o, f.metric), shell_word(f.problem), shell_word(f.variant));
  }
  if (o.tool == "gbench") return fmt::format("add {} to the benchmark's arguments (->Arg({})) and fit its results again", n, n);
  if (o.tool == "nvbench") return fmt::format("add {} to the axis '{}' and fit its results again", n, o.size);
  if (o.tool == "hyperfine")
    return fmt::format("add {} to the values of the parameter '{}' (-L {} ...,{}) and fit its results again", n, o.size, o.size, n);
  return fmt::format("measure n = {}, add it to the file and fit it again", n);
}

std::string settle_all_text(const std::vector<variant_fit>& fits, table_style style) {
  const variant_fit* first = nullptr;
  std::set<std::string> problems;
  std::size_t count = 0;
  double predicted = 0;
  bool times = true;
  for (const auto& f : fits) {
    if (settle_text(f).empty() || !f.origin.experiment) continue;
    if (settle_predicted_too_long(f)) continue;  // `ema fit --settle` would not run it
    if (!first) first = &f;
    problems.insert(f.problem);
    ++count;
    if (f.analysis->verdict.predicted && f.unit == "s")
      predicted += *f.analysis->verdict.predicted;
    else
      times = false;
  }
  if (!first) return {};
  const auto what = fmt::format("measures the size named for {} variant{} ({}) and fits again", count, count == 1 ? "" : "s",
                                times ? fmt::format("{} of runs predicted", format_time(predicted)) : "time not predicted");
  // One problem's table (the report's sections) names it, so the command runs no other's sizes.
  const auto command =
      fit_command(first->origin, first->metric) + (problems.size() == 1 ? " --problem " + shell_word(first->problem) : "") + " --settle";
  return style == table_style::markdown ? fmt::format("To settle them: {} {}.\n", code_text(command, style), what)
                                        : fmt::format("to settle them: {}   # {}\n", command, what);
}

std::string render_fit_summary(const std::vector<variant_fit>& fits, table_style style) {
  grid t;
  t.columns = {{"problem", false}, {"variant", false},      {"class", false},       {"exponent of n (95%)", false},
               {"verdict", false}, {"not excluded", false}, {"to settle it", false}};
  for (const auto& f : fits) {
    const auto ptext = params_text(f.params_json, ",", f.problem);
    const auto problem = ptext.empty() ? f.problem : fmt::format("{} ({})", f.problem, ptext);
    if (!f.analysis) {
      t.rows.push_back({problem, f.variant, "—", "", "not fitted", "", f.skipped});
      continue;
    }
    const auto& a = *f.analysis;
    const auto& vd = a.verdict;
    auto verdict = std::string(fit::to_string(vd.level));
    if (!vd.reasons.empty()) verdict += fmt::format(" ({} reason{})", vd.reasons.size(), vd.reasons.size() == 1 ? "" : "s");
    std::string settle;
    if (vd.next_size)
      settle = fmt::format("n = {}{}", format_size(*vd.next_size),
                           vd.predicted ? fmt::format(" (predicted {})", format_value(*vd.predicted, f.unit)) : std::string());
    // The answer first (issue 29): the exponent of n with its interval, and the classes the data
    // cannot tell from the class shown.
    std::string exponent;
    if (const auto& ci = a.uncertainty.interval; ci && ci->what == "exponent of n")
      exponent = fmt::format("{} [{}, {}]", fit::exponent_text(ci->estimate), fit::exponent_text(ci->lo), fit::exponent_text(ci->hi));
    std::string rivals;
    if (a.classes) {
      const auto& r = a.classes->rivals;
      for (std::size_t i = 0; i < r.size() && i < 3; ++i) rivals += (i ? ", " : "") + a.classes->classes[r[i]].cls.text();
      if (r.size() > 3) rivals += fmt::format(" and {} more", r.size() - 3);
    }
    auto cls = a.groups.best.theta().text();
    if (a.classes && !a.classes->answer().steps.empty()) cls += fmt::format(" ({} regimes)", a.classes->answer().steps.size() + 1);
    t.rows.push_back({problem, f.variant, cls, exponent, verdict, rivals.empty() ? "—" : rivals, settle});
  }
  auto out = render(t, style);
  if (const auto all = settle_all_text(fits, style); !all.empty()) out += (style == table_style::markdown ? "\n" : "") + all;
  return out;
}

namespace {

/// A fit's heading: the series, and its metric.
std::string fit_heading(const variant_fit& f, table_style style) {
  const bool md = style == table_style::markdown;
  const auto ptext = params_text(f.params_json, ",", f.problem);
  const std::string title = f.problem.empty() ? (ptext.empty() ? f.variant : fmt::format("{} ({})", f.variant, ptext))
                            : ptext.empty()   ? fmt::format("{} · {}", f.problem, f.variant)
                                              : fmt::format("{} ({}) · {}", f.problem, ptext, f.variant);
  return md ? fmt::format("\n#### {} — {}\n\n", stored_text(title, style), stored_text(f.metric, style))
            : fmt::format("\n{} — {}\n", title, f.metric);
}

/// The sizes, the answer first, then the verdict: how far it can be quoted (analysis/verdict.hpp).
std::string fit_answer(const variant_fit& f, const fit::analysis& a, table_style style, const char* ind) {
  const auto sizes = a.data.sizes();
  std::string out = fmt::format("{}{} sizes from {} to {}, {} values; {} equations fitted\n", ind, sizes.size(), format_size(sizes.front()),
                                format_size(sizes.back()), a.data.size(), a.groups.candidates);
  out += fmt::format("{}answer: {}\n", ind, stored_text(fit::answer_text(a), style));
  const auto& vd = a.verdict;
  out += fmt::format("{}verdict: {}{}\n", ind, fit::to_string(vd.level),
                     std::isfinite(vd.noise) ? fmt::format(" (noise of a measured value σ = {})", fit::percent(vd.noise)) : std::string());
  for (const auto& why : vd.reasons) out += fmt::format("{}  - {}\n", ind, stored_text(why, style));
  for (const auto& note : vd.notes) out += fmt::format("{}  note: {}\n", ind, stored_text(note, style));
  if (vd.next_size) {
    out += fmt::format("{}  to settle it: run n = {} (the best equation predicts {} there)\n", ind, format_size(*vd.next_size),
                       vd.predicted ? format_value(*vd.predicted, f.unit) : std::string("?"));
    if (const auto how = settle_text(f); !how.empty() && f.origin.experiment && settle_predicted_too_long(f))
      // `ema fit --settle` would refuse it (cmd_fit.cpp): a command that runs nothing is no way to settle it.
      out += fmt::format("{}  to run it: not with `ema fit --settle`: one run is predicted to take {}, past the {} a point may take here\n", ind,
                         format_time(*vd.predicted), format_time(settle_limit(f)));
    else if (!how.empty())
      out += fmt::format("{}  to run it: {}\n", ind, f.origin.experiment ? code_text(how, style) : stored_text(how, style));
  }
  return out;
}

/// EMA's groups as a table (the best equation, the minimum-error one, up to 8 more or all of
/// them) and the groups' sizes.
std::string fit_groups_table(const variant_fit& f, const fit::equation_groups& g, table_style style, bool all_equations, const char* ind) {
  const bool md = style == table_style::markdown;
  grid t;
  t.columns = {{"group", false}, {"equation", false}, {"Θ", false}, {"coef", true}, {"max err", true}, {"tie breaker", true}};
  auto row = [&](const std::string& group, const fit::equation& e, const std::string& tie) {
    t.rows.push_back({group, e.formula(), e.theta().text(), std::to_string(e.coefficient_count()), format_percent(e.max_rel_err), tie});
  };
  auto tie_text = [&](const fit::tie_break& tb) {
    if (!tb.n) return std::string("never");
    return fmt::format("n = {} ({})", format_size(*tb.n), std::isfinite(tb.cost) ? format_time(tb.cost) : "?");
  };
  const auto best_key = g.best.formula();
  std::string best_tie;
  for (const auto* list : {&g.distinguishable, &g.non_distinguishable})
    for (const auto& tb : *list)
      if (tb.eq.formula() == best_key) best_tie = (list == &g.distinguishable ? "" : "non-distinguishable: ") + tie_text(tb);
  if (best_key == g.min_error.formula()) {
    row("best and minimum error", g.best, "");
  } else {
    row("best", g.best, best_tie);
    row("minimum error", g.min_error, "");
  }
  std::size_t shown = best_key == g.min_error.formula() ? 0 : 1;
  for (const auto* list : {&g.distinguishable, &g.non_distinguishable})
    for (const auto& tb : *list) {
      if (tb.eq.formula() == best_key || (!all_equations && shown >= 8)) continue;
      ++shown;
      row(list == &g.distinguishable ? "distinguishable" : "non-distinguishable", tb.eq, tie_text(tb));
    }
  std::string out = md ? "\n" + render(t, style) + "\n" : render(t, style);
  if (g.equivalent.size() > shown)
    out += fmt::format("{}… and {} more equivalent equations (--all-equations lists them)\n", ind, g.equivalent.size() - shown);
  out += fmt::format(
      "{}equivalent: {} (within {} of the minimum-error one at every size); distinguishable: {}, "
      "non-distinguishable: {} (tie breaker beyond the budget of {})\n",
      ind, g.equivalent.size(), format_percent(0.05), g.distinguishable.size(), g.non_distinguishable.size(), format_time(f.budget));
  return out;
}

/// The knee, the breakpoints, the regime, the exponent's interval, the held-out check and the
/// sizes off their neighbours.
std::string fit_details(const variant_fit& f, const fit::analysis& a, table_style style, const char* ind) {
  std::string out;
  if (a.knee) {
    out += fmt::format(
        "{}knee at n ≈ {}: {} below, {} above (slopes {:.2f} and {:.2f} in log-log); the groups describe "
        "the regime above it",
        ind, format_size(std::round(a.knee->where.n)), a.knee->below.text(), a.knee->above.text(), a.knee->where.slope_below,
        a.knee->where.slope_above);
    if (f.resident_threads) out += fmt::format("; GPU resident threads (SMs × threads per SM): {:.0f}", *f.resident_threads);
    out += "\n";
  }
  if (!a.breakpoints.empty()) {
    std::vector<std::string> texts;
    for (const auto& b : a.breakpoints) texts.push_back(b.text());
    out += fmt::format("{}breakpoints: {}\n", ind, stored_text(fmt::format("{}", fmt::join(texts, "; ")), style));
  }
  if (!a.regime.empty() && !a.knee) out += fmt::format("{}the groups describe the regime {}\n", ind, a.regime);
  if (const auto& ci = a.uncertainty.interval)
    out += fmt::format("{}{}: {:.3g}, 95% interval [{:.3g}, {:.3g}] ({} bootstrap resamples)\n", ind, ci->what, ci->estimate, ci->lo, ci->hi,
                       ci->resamples);
  if (a.check) {
    std::vector<std::string> held;
    for (const auto& p : a.check->points) held.push_back(format_size(p.n));
    out += fmt::format("{}held out n = {}: the best equation of the other sizes ({}) predicts them within {}\n", ind, fmt::join(held, ", "),
                       a.check->best.theta().text(), format_percent(a.check->max_rel_err));
  }
  if (!a.off.empty()) {
    std::vector<std::string> texts;
    for (const auto& o : a.off) texts.push_back(fmt::format("n = {} ({:+.0f}%)", format_size(o.n), 100 * o.departure));
    out += fmt::format("{}off both neighbours (a disturbance?): {}{}\n", ind, fmt::join(texts, ", "),
                       f.problem.empty() ? "" : "; `ema run --rerun-noisy` measures them again");
  }
  return out;
}

}  // namespace

std::string render_fits(const std::vector<variant_fit>& fits, table_style style, bool all_equations) {
  const char* ind = style == table_style::markdown ? "- " : "  ";
  std::string out;
  for (const auto& f : fits) {
    out += fit_heading(f, style);
    if (!f.analysis) {
      out += fmt::format("{}not fitted: {}\n", ind, stored_text(f.skipped, style));
    } else {
      out += fit_answer(f, *f.analysis, style, ind);
      out += fit_groups_table(f, f.analysis->groups, style, all_equations, ind);
      out += fit_details(f, *f.analysis, style, ind);
    }
    for (const auto& n : f.notes) out += fmt::format("{}note: {}\n", ind, stored_text(n, style));
  }
  return out;
}

}  // namespace ema
