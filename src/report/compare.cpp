#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <random>
#include <tuple>

#include "core/format.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "analysis/class_set.hpp"
#include "report/fits.hpp"
#include "measure/stats.hpp"

namespace ema {
namespace {

using key = std::tuple<std::string, std::string, std::string, std::uint64_t>;  // problem, params, variant, n

/// Every sample of `metric` of the points that ran ok, pooled per key, in first-seen order.
std::map<key, std::vector<double>> samples_of(const experiment_view& v, const std::string& metric, std::vector<key>& order) {
  std::map<key, std::vector<double>> out;
  for (const auto& p : v.points) {
    if (p.record.status != point_status::ok) continue;
    auto it = p.metrics.find(metric);
    if (it == p.metrics.end() || it->second.values.empty()) continue;
    key k{p.record.problem, p.record.params_json, p.record.variant, p.record.n};
    auto& s = out[k];
    if (s.empty()) order.push_back(k);
    s.insert(s.end(), it->second.values.begin(), it->second.values.end());
  }
  return out;
}

// "problem (non-default parameters)".
std::string titled(const std::string& problem, const std::string& params_json) {
  const auto params = params_text(params_json, ",", problem);
  return params.empty() ? problem : fmt::format("{} ({})", problem, params);
}

std::string label(const key& k) {
  const auto params = params_text(std::get<1>(k), ",", std::get<0>(k));
  return fmt::format("{} {} n={}{}", std::get<0>(k), std::get<2>(k), std::get<3>(k), params.empty() ? "" : " (" + params + ")");
}

/// The points of an experiment whose measurement the noise cannot explain, with why: those that
/// ran on a busy machine, and those that lie off both neighbours along their own series (the
/// medians of `metric` against n, per problem, parameters and variant).
std::map<key, std::string> suspects(const experiment_view& v, const std::map<key, std::vector<double>>& samples) {
  std::map<key, std::string> out;
  for (const auto& p : v.points)
    if (p.record.status == point_status::ok)
      if (auto why = disturbed(p))
        out[{p.record.problem, p.record.params_json, p.record.variant, p.record.n}] = "ran on a busy machine (" + *why + ")";
  std::map<std::tuple<std::string, std::string, std::string>, fit::series> series;
  for (const auto& [k, xs] : samples) series[{std::get<0>(k), std::get<1>(k), std::get<2>(k)}].add(static_cast<double>(std::get<3>(k)), median(xs));
  for (const auto& [s, data] : series)
    for (const auto& off : fit::off_neighbours(data)) {
      auto& why = out[{std::get<0>(s), std::get<1>(s), std::get<2>(s), static_cast<std::uint64_t>(std::llround(off.n))}];
      why += fmt::format("{}off its neighbours ({:+.0f}%)", why.empty() ? "" : "; ", 100 * off.departure);
    }
  return out;
}

}  // namespace

comparison compare_experiments(const experiment_view& a, const experiment_view& b, const std::string& metric, double threshold, int resamples,
                               std::uint64_t seed) {
  comparison c;
  c.metric = metric;
  c.threshold = threshold;
  std::vector<key> order_a, order_b;
  const auto sa = samples_of(a, metric, order_a), sb = samples_of(b, metric, order_b);
  const auto suspect_a = suspects(a, sa), suspect_b = suspects(b, sb);
  std::mt19937_64 rng(seed);
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<double, int>> logs;  // sum of log ratios, count
  std::vector<std::tuple<std::string, std::string, std::string>> variant_order;
  for (const auto& k : order_a) {
    auto other = sb.find(k);
    if (other == sb.end()) {
      c.only_a.push_back(label(k));
      continue;
    }
    const auto& xa = sa.at(k);
    const auto& xb = other->second;
    compared_point p{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), median(xa), median(xb)};
    if (!(p.a > 0) || !(p.b > 0)) continue;
    p.ratio = p.b / p.a;
    // The ratio of the medians of the two points' samples, each resampled with replacement.
    std::tie(p.lo, p.hi) = median_ratio_interval(xa, xb, resamples, rng);
    const double up = 1 + threshold, down = 1 / (1 + threshold);
    p.verdict = p.hi < down ? "faster" : p.lo > up ? "slower" : (p.lo >= down && p.hi <= up) ? "same" : "ambiguous";
    for (const auto& [side, suspect] : {std::pair{"A", &suspect_a}, std::pair{"B", &suspect_b}})
      if (auto it = suspect->find(k); it != suspect->end()) p.caution += fmt::format("{}{}: {}", p.caution.empty() ? "" : "; ", side, it->second);
    const auto vk = std::tuple{p.problem, p.params_json, p.variant};
    if (!logs.count(vk)) variant_order.push_back(vk);
    logs[vk].first += std::log(p.ratio);
    ++logs[vk].second;
    c.points.push_back(std::move(p));
  }
  for (const auto& k : order_b)
    if (!sa.count(k)) c.only_b.push_back(label(k));
  for (const auto& vk : variant_order) {
    const auto& [sum, count] = logs.at(vk);
    c.variants.push_back({std::get<0>(vk), std::get<1>(vk), std::get<2>(vk), count, std::exp(sum / count)});
  }
  return c;
}

void compare_fits(comparison& c, const experiment_view& a, const experiment_view& b) {
  fit_request r;
  r.metric = c.metric;
  auto fitted = [&](const experiment_view& v) {
    try {
      return fit_experiment(v, r);
    } catch (const usage_error&) {  // the metric is not in this experiment: nothing to compare
      return std::vector<variant_fit>{};
    }
  };
  const auto fa = fitted(a), fb = fitted(b);
  for (const auto& x : fa) {
    if (!x.analysis) continue;
    auto y = std::find_if(fb.begin(), fb.end(), [&](const variant_fit& f) {
      return f.analysis && f.problem == x.problem && f.params_json == x.params_json && f.variant == x.variant;
    });
    if (y == fb.end()) continue;
    compared_fit cf{x.problem, x.params_json, x.variant};
    cf.a_class = x.analysis->groups.best.theta().text();
    cf.b_class = y->analysis->groups.best.theta().text();
    cf.a_verdict = fit::to_string(x.analysis->verdict.level);
    cf.b_verdict = fit::to_string(y->analysis->verdict.level);
    if (const auto& i = x.analysis->uncertainty.interval; i && i->what == "exponent of n") cf.a_exponent = i->estimate;
    if (const auto& i = y->analysis->uncertainty.interval; i && i->what == "exponent of n") cf.b_exponent = i->estimate;
    cf.class_changed = cf.a_class != cf.b_class;
    c.fits.push_back(std::move(cf));
  }
}

std::string render_comparison(const comparison& c, const std::string& a_name, const std::string& b_name, table_style style) {
  const bool md = style == table_style::markdown;
  std::string out = fmt::format(
      "{}{} against {}: ratio of medians of {}, {} / {} (below 1: {} is faster); 95% bootstrap "
      "interval; threshold {}\n\n",
      md ? "## " : "", b_name, a_name, c.metric, b_name, a_name, b_name, format_percent(c.threshold));
  const std::string unit = find_metric(c.metric).unit;
  grid g;
  g.columns = {{"problem", false}, {"variant", false},     {"n", true},       {a_name, true}, {b_name, true},
               {"ratio", true},    {"95% interval", true}, {"verdict", false}};
  const bool cautions = std::any_of(c.points.begin(), c.points.end(), [](const auto& p) { return !p.caution.empty(); });
  if (cautions) g.columns.push_back({"caution", false});
  for (const auto& p : c.points) {
    g.rows.push_back({titled(p.problem, p.params_json), p.variant, std::to_string(p.n), format_value(p.a, unit), format_value(p.b, unit),
                      fmt::format("{:.3f}", p.ratio), fmt::format("[{:.3f}, {:.3f}]", p.lo, p.hi), p.verdict + (p.caution.empty() ? "" : " ?")});
    if (cautions) g.rows.back().push_back(p.caution);
  }
  out += render(g, style);
  if (cautions)
    out += fmt::format(
        "{}?: a ratio the noise cannot explain on one side: that point ran on a busy machine or lies off its neighbours "
        "in its own experiment, so the difference may be a disturbance, not the code (`ema run --rerun-noisy` measures it "
        "again)\n",
        md ? "\n" : "");
  out += md ? "\n" : "";
  grid v;
  v.columns = {{"problem", false}, {"variant", false}, {"points", true}, {"geometric mean of the ratios", true}};
  for (const auto& x : c.variants)
    v.rows.push_back({titled(x.problem, x.params_json), x.variant, std::to_string(x.points), fmt::format("{:.3f}", x.geomean)});
  out += "\n" + render(v, style);
  if (!c.fits.empty()) {
    grid f;
    f.columns = {{"problem", false},      {"variant", false}, {"class in " + a_name, false}, {"class in " + b_name, false},
                 {"exponent of n", true}, {"", false}};
    auto exponent = [](const std::optional<double>& e) { return e ? fmt::format("{:.3g}", *e) : std::string("-"); };
    for (const auto& x : c.fits)
      f.rows.push_back({titled(x.problem, x.params_json), x.variant, fmt::format("{} ({})", x.a_class, x.a_verdict),
                        fmt::format("{} ({})", x.b_class, x.b_verdict), fmt::format("{} → {}", exponent(x.a_exponent), exponent(x.b_exponent)),
                        x.class_changed ? "class changed" : ""});
    out += "\n" + render(f, style);
  }
  for (const auto* only : {&c.only_a, &c.only_b})
    for (const auto& l : *only) out += fmt::format("{}only in {}: {}\n", md ? "- " : "", only == &c.only_a ? a_name : b_name, stored_text(l, style));
  return out;
}

nlohmann::json comparison_json(const comparison& c, const std::string& a_name, const std::string& b_name) {
  nlohmann::json j = {{"schema", "ema.compare/1"},
                      {"metric", c.metric},
                      {"threshold", c.threshold},
                      {"a", a_name},
                      {"b", b_name},
                      {"points", nlohmann::json::array()},
                      {"variants", nlohmann::json::array()},
                      {"only_a", c.only_a},
                      {"only_b", c.only_b}};
  for (const auto& p : c.points) {
    auto params = nlohmann::json::parse(p.params_json, nullptr, false);
    j["points"].push_back({{"problem", p.problem},
                           {"params", params.is_object() ? params : nlohmann::json::object()},
                           {"variant", p.variant},
                           {"n", p.n},
                           {"a", p.a},
                           {"b", p.b},
                           {"ratio", p.ratio},
                           {"lo", p.lo},
                           {"hi", p.hi},
                           {"verdict", p.verdict},
                           {"caution", p.caution.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.caution)}});
  }
  j["fits"] = nlohmann::json::array();
  for (const auto& f : c.fits) {
    auto params = nlohmann::json::parse(f.params_json, nullptr, false);
    j["fits"].push_back({{"problem", f.problem},
                         {"params", params.is_object() ? params : nlohmann::json::object()},
                         {"variant", f.variant},
                         {"a_class", f.a_class},
                         {"b_class", f.b_class},
                         {"a_verdict", f.a_verdict},
                         {"b_verdict", f.b_verdict},
                         {"a_exponent", f.a_exponent ? nlohmann::json(*f.a_exponent) : nlohmann::json(nullptr)},
                         {"b_exponent", f.b_exponent ? nlohmann::json(*f.b_exponent) : nlohmann::json(nullptr)},
                         {"class_changed", f.class_changed}});
  }
  for (const auto& v : c.variants) {
    auto params = nlohmann::json::parse(v.params_json, nullptr, false);
    j["variants"].push_back({{"problem", v.problem},
                             {"params", params.is_object() ? params : nlohmann::json::object()},
                             {"variant", v.variant},
                             {"points", v.points},
                             {"geomean", v.geomean}});
  }
  return j;
}

}  // namespace ema
