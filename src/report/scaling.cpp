#include "report/scaling.hpp"

#include "analysis/work_model.hpp"

#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <tuple>

#include "core/errors.hpp"
#include "core/format.hpp"
#include "core/metrics.hpp"
#include "core/registry.hpp"
#include "runner/plan.hpp"
#include "report/svg_chart.hpp"
#include "measure/stats.hpp"
#include <limits>

namespace ema {
namespace {

/// Past the last cache, for a cost bound by memory: the smallest size whose working set (the
/// problem's bytes) is at least twice the last level the back end's data pass through, where at
/// least 3 sizes lie there; else 0, with a note of how many do.
double past_the_caches(const experiment_view& v, const std::string& problem, const std::string& params, const std::string& backend,
                       const std::vector<double>& sizes, std::string& why, std::string& note) {
  const auto* desc = lookup_problem(problem);
  const auto caches = fit::memory_levels(v.experiment.machine, backend);
  if (!desc || !desc->work || caches.empty()) return 0;
  auto p = param_set::restore_json(desc->name, desc->params, params);
  if (!p) return 0;
  const auto& last = caches.back();
  std::vector<double> past;
  try {
    // A cost bound by arithmetic (fewer bytes than operations at the largest size) does not step at a cache's edge.
    const auto top = desc->work(static_cast<std::uint64_t>(sizes.back()), *p);
    if (!(top.bytes > 0 && top.ops / top.bytes < 1)) return 0;
    for (double n : sizes)
      if (working_set_bytes(*desc, static_cast<std::uint64_t>(n), *p) >= 2 * last.bytes) past.push_back(n);
  } catch (const std::exception&) {
    return 0;  // a work model that refuses the parameters: no cache regime
  }
  if (past.size() == sizes.size()) return 0;
  if (past.size() >= 3) {
    why = fmt::format("the sizes whose working set is past twice the {} ({}); below it the cost per unit of work is a cache's", last.name,
                      format_bytes(last.bytes));
    return past.front();
  }
  note = past.empty() ? fmt::format("no size holds a working set past twice the {} ({}): W may describe cache-resident runs", last.name,
                                    format_bytes(last.bytes))
                      : fmt::format(
                            "only {} of the {} sizes hold a working set past twice the {} ({}): the others, fitted with them, may bend "
                            "W by a cache's step",
                            past.size(), sizes.size(), last.name, format_bytes(last.bytes));
  return 0;
}

/// The work the variant's W may not grow slower than (report/fits.cpp, add_work_model): the
/// problem's bytes and operations and its algorithm's own floor; none where the parameters are not
/// ones the problem declares or the algorithm estimates.
std::vector<std::function<double(double)>> work_of(const experiment_view& v, const std::string& problem, const std::string& params,
                                                   const std::string& variant) {
  const auto* desc = lookup_problem(problem);
  if (!desc || !desc->work) return {};
  auto p = param_set::restore_json(desc->name, desc->params, params);
  if (!p) return {};
  return work_floors(*desc, std::make_shared<const param_set>(std::move(*p)), stored_algorithm(v, problem, variant));
}

/// The weak-scaling chains of one series: from each of the plan's `weak` sizes (at the smallest
/// count, grown by runner/plan.cpp weak_size at each count), or, where the plan names none, the
/// series itself (each count at its own size).
void weak_series(variant_scaling& s, const fit::scaling_series& d, const std::vector<double>& bases, double noise) {
  const auto* desc = lookup_problem(s.problem);
  std::optional<param_set> params;
  if (desc) params = param_set::restore_json(desc->name, desc->params, s.params_json);
  std::function<double(double)> work;
  if (desc && desc->work && params)
    work = [desc, p = *params](double n) {
      const auto w = desc->work(static_cast<std::uint64_t>(n), p);
      return w.ops > 0 ? w.ops : w.bytes;
    };
  const auto procs = d.procs();
  std::vector<std::vector<fit::weak_point>> chains;
  if (bases.empty()) {
    chains.emplace_back();
    for (std::size_t i = 0; i < d.size(); ++i) chains.back().push_back({d.p[i], d.n[i], d.y[i]});
  } else {
    if (!desc || !params) {
      s.weak_skipped = "the problem or its parameters are not this build's: the sizes grown with p cannot be told";
      return;
    }
    for (const double n0 : bases) {
      std::vector<fit::weak_point> chain;
      for (const double p : procs) {
        std::uint64_t n = 0;
        try {
          n = weak_size(*desc, *params, static_cast<std::uint64_t>(n0), p / procs.front());
        } catch (const std::exception&) {
          continue;
        }
        for (std::size_t i = 0; i < d.size(); ++i)
          if (d.p[i] == p && d.n[i] == static_cast<double>(n)) chain.push_back({p, d.n[i], d.y[i]});
      }
      chains.push_back(std::move(chain));
    }
  }
  for (const auto& chain : chains) {
    try {
      s.weak.push_back(fit::analyze_weak(chain, work, noise));
    } catch (const std::invalid_argument& e) {
      if (s.weak_skipped.empty()) s.weak_skipped = e.what();
    }
  }
}

}  // namespace

std::vector<variant_scaling> fit_scaling(const experiment_view& v, const fit_request& r) {
  using key_t = std::tuple<std::string, std::string, std::string, const processor_axis*>;  // problem, others, variant, axis
  std::map<key_t, fit::scaling_series> data;
  std::map<key_t, std::string> backends;
  std::map<key_t, std::vector<double>> rse;
  std::vector<key_t> order;
  for (const auto& pt : v.points) {
    const auto& rec = pt.record;
    if (rec.status != point_status::ok || !pt.params.is_object()) continue;
    if (!r.problems.empty() && std::find(r.problems.begin(), r.problems.end(), rec.problem) == r.problems.end()) continue;
    if (!names_variant(r.variants, rec.problem, rec.variant)) continue;
    const auto it = pt.metrics.find(r.metric);
    if (it == pt.metrics.end() || !it->second.stats.count) continue;
    for (const auto& axis : processor_axes) {
      if (!pt.params.contains(axis.key)) continue;
      const auto& raw = pt.params[axis.key];
      double p = 0;
      try {
        p = raw.is_string() ? std::stod(raw.get<std::string>()) : raw.get<double>();
      } catch (const std::exception&) {
        continue;  // not a count (stored by hand): not a processor axis point
      }
      auto others = pt.params;
      others.erase(axis.key);
      const key_t k{rec.problem, others.dump(), rec.variant, &axis};
      if (!data.count(k)) order.push_back(k), backends[k] = rec.backend;
      const double y = point_value(it->second, r.stat);
      if (y > 0 && std::isfinite(y) && std::isfinite(p) && p >= 1) data[k].add(static_cast<double>(rec.n), p, y);
      if (const double e = median_rse(it->second.values); std::isfinite(e)) rse[k].push_back(e);
    }
  }
  // Each variant's noise of a point: the median of its points' repetitions' relative standard errors.
  std::map<key_t, double> noise;
  for (const auto& k : order) noise[k] = rse.count(k) ? median(rse.at(k)) : std::numeric_limits<double>::quiet_NaN();
  std::vector<double> weak_bases;
  for (const auto& n0 : v.experiment.plan.value("weak", nlohmann::json::array()))
    if (n0.is_number_unsigned()) weak_bases.push_back(n0.get<double>());
  std::vector<variant_scaling> out;
  for (const auto& k : order) {
    const auto& d = data.at(k);
    if (d.procs().size() < 2) continue;
    // A size measured at two or more counts: strong scaling, fitted in n and p. None: each count
    // has its own size, a weak-scaling series.
    std::map<double, std::set<double>> counts_at;
    for (std::size_t i = 0; i < d.size(); ++i) counts_at[d.n[i]].insert(d.p[i]);
    const bool strong = std::any_of(counts_at.begin(), counts_at.end(), [](const auto& kv) { return kv.second.size() >= 2; });
    auto entry = [&] {
      variant_scaling s;
      s.problem = std::get<0>(k);
      s.params_json = std::get<1>(k);
      s.variant = std::get<2>(k);
      s.axis = std::get<3>(k)->what;
      s.backend = backends.at(k);
      s.metric = r.metric;
      s.unit = find_metric(r.metric).unit;
      return s;
    };
    if (!weak_bases.empty() || !strong) {
      auto s = entry();
      weak_series(s, d, weak_bases, noise.at(k));
      if (!strong) {
        out.push_back(std::move(s));
        continue;
      }
      // Weak chains and a size at several counts both: the strong fit too, below, in its own entry.
      if (!s.weak.empty() || !s.weak_skipped.empty()) out.push_back(std::move(s));
    }
    auto s = entry();
    std::string why, note;
    const double from = past_the_caches(v, s.problem, s.params_json, s.backend, d.sizes(), why, note);
    try {
      s.analysis = fit::analyze_scaling(
          d, {.from = from, .from_why = why, .unsettled = note, .noise = noise.at(k), .work = work_of(v, s.problem, s.params_json, s.variant)});
    } catch (const std::invalid_argument& e) {
      s.skipped = e.what();
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string render_scaling(const std::vector<variant_scaling>& all, table_style style) {
  if (all.empty()) return "";
  const bool md = style == table_style::markdown;
  std::string out = md ? "\n## Scaling with processors\n\n" : "\nscaling with processors: T(n, p) = W(n)/p + D(n)\n";
  for (const auto& s : all) {
    const auto params = params_text(s.params_json, ",", s.problem);
    const auto title = fmt::format("{} {}{} — {} over {}", s.problem, s.variant, params.empty() ? "" : " (" + params + ")", s.metric, s.axis);
    out += md ? fmt::format("### {}\n\n```\n", title) : fmt::format("\n{}\n", title);
    if (!s.weak.empty() || !s.weak_skipped.empty()) {
      for (const auto& w : s.weak) out += fit::weak_text(w, s.unit);
      if (s.weak.empty()) out += fmt::format("  weak scaling not analysed: {}\n", s.weak_skipped);
    } else if (!s.analysis) {
      out += fmt::format("  not fitted: {}\n", s.skipped);
    } else {
      const auto& a = *s.analysis;
      out += fmt::format("  {} sizes from {} to {}, p = {}\n", a.data.sizes().size(), format_size(a.data.sizes().front()),
                         format_size(a.data.sizes().back()), [&] {
                           std::string t;
                           for (double p : a.data.procs()) t += fmt::format("{}{:g}", t.empty() ? "" : ",", p);
                           return t;
                         }());
      out += fit::scaling_text(a, s.unit);
    }
    if (md) out += "```\n\n";
  }
  return out;
}

nlohmann::json scaling_json(const std::vector<variant_scaling>& all) {
  auto out = nlohmann::json::array();
  for (const auto& s : all) {
    nlohmann::json j = {{"problem", s.problem},
                        {"variant", s.variant},
                        {"backend", s.backend},
                        {"metric", s.metric},
                        {"unit", s.unit},
                        {"axis", s.axis},
                        {"params", nlohmann::json::parse(s.params_json, nullptr, false)}};
    if (!s.weak.empty() || !s.weak_skipped.empty()) {
      j["weak"] = nlohmann::json::array();
      for (const auto& w : s.weak) j["weak"].push_back(fit::to_json(w));
      if (!s.weak_skipped.empty()) j["weak_skipped"] = s.weak_skipped;
    } else if (s.analysis) {
      j["fit"] = fit::to_json(*s.analysis);
    } else {
      j["skipped"] = s.skipped;
    }
    out.push_back(std::move(j));
  }
  return out;
}

namespace {

/// Measured speedups (or efficiencies) against p, a series per size measured on one processor.
std::vector<chart_series> measured_series(const fit::scaling_analysis& a, bool efficiency) {
  std::map<double, std::map<double, std::vector<double>>> by;  // n -> p -> values
  for (std::size_t i = 0; i < a.data.size(); ++i) by[a.data.n[i]][a.data.p[i]].push_back(a.data.y[i]);
  std::vector<chart_series> out;
  int color = 0;
  const double base = a.base_p;  // 1 for threads; the smallest partition for SMs
  for (const auto& [n, by_p] : by) {
    if (!by_p.count(base)) continue;
    const double t1 = median(by_p.at(base));
    chart_series s;
    s.name = fmt::format("n = {}", format_size(n));
    s.color = color++;
    for (const auto& [p, ys] : by_p) {
      const double sp = t1 / median(ys), y = efficiency ? sp / (p / base) : sp;
      s.points.push_back({p, y, 0, 0, fmt::format("n = {}, p = {:g}: speedup {}, efficiency {:.2f}", format_size(n), p, format_ratio(sp), sp / p)});
      s.curve.emplace_back(p, y);
    }
    out.push_back(std::move(s));
  }
  return out;
}

/// The efficiency over (n, p) as curves in n, one per count above the smallest: where each count
/// pays off.
std::vector<chart_series> efficiency_in_n(const fit::scaling_analysis& a) {
  std::map<double, std::map<double, std::vector<double>>> by;  // n -> p -> values
  for (std::size_t i = 0; i < a.data.size(); ++i) by[a.data.n[i]][a.data.p[i]].push_back(a.data.y[i]);
  std::map<double, chart_series> per_p;
  for (const auto& [n, by_p] : by) {
    if (!by_p.count(a.base_p)) continue;
    const double t0 = median(by_p.at(a.base_p));
    for (const auto& [p, ys] : by_p) {
      if (p == a.base_p) continue;
      const double e = t0 / median(ys) / (p / a.base_p);
      auto& c = per_p[p];
      c.name = fmt::format("p = {:g}", p);
      c.points.push_back({n, e, 0, 0, fmt::format("n = {}, p = {:g}: efficiency {:.2f}", format_size(n), p, e)});
      c.curve.emplace_back(n, e);
    }
  }
  std::vector<chart_series> out;
  int color = 0;
  for (auto& [p, c] : per_p) {
    c.color = color++;
    out.push_back(std::move(c));
  }
  return out;
}

/// A chart against the processor count of a variant: "{problem} {variant}: {what} against {axis}{after}".
chart against_p(const variant_scaling& s, const std::string& what, const std::string& after, std::string subtitle, std::string y_label) {
  chart c;
  c.title = fmt::format("{} {}: {} against {}{}", s.problem, s.variant, what, s.axis, after);
  c.subtitle = std::move(subtitle);
  c.x_label = s.axis;
  c.y_label = std::move(y_label);
  c.format_x = [](double p) { return fmt::format("{:g}", p); };
  return c;
}

/// Measured times against p, a series per size (strong scaling), the ideal T(n, p0)·p0/p dashed
/// for the largest size.
std::vector<chart_series> times_against_p(const fit::scaling_analysis& a) {
  std::map<double, std::map<double, std::vector<double>>> by;  // n -> p -> values
  for (std::size_t i = 0; i < a.data.size(); ++i) by[a.data.n[i]][a.data.p[i]].push_back(a.data.y[i]);
  std::vector<chart_series> out;
  int color = 0;
  for (const auto& [n, by_p] : by) {
    if (by_p.size() < 2) continue;
    chart_series s{.name = fmt::format("n = {}", format_size(n)), .color = color++};
    for (const auto& [p, ys] : by_p) {
      const double t = median(ys);
      s.points.push_back({p, t, 0, 0, fmt::format("n = {}, p = {:g}: {}", format_size(n), p, format_time(t))});
      s.curve.emplace_back(p, t);
    }
    out.push_back(std::move(s));
  }
  if (!out.empty() && by.rbegin()->second.count(a.base_p)) {
    const double t0 = median(by.rbegin()->second.at(a.base_p));
    chart_series ideal{.name = fmt::format("ideal, n = {}", format_size(by.rbegin()->first)), .color = -1, .dashed = true};
    const auto procs = a.data.procs();
    for (double p = procs.front(); p <= procs.back() * 1.0001; p *= std::pow(2.0, 0.25)) ideal.curve.emplace_back(p, t0 * a.base_p / p);
    out.push_back(std::move(ideal));
  }
  return out;
}

/// The Karp–Flatt serial fraction against p, a series per size measured at the smallest count.
std::vector<chart_series> karp_flatt_against_p(const fit::scaling_analysis& a) {
  std::map<double, std::map<double, std::vector<double>>> by;
  for (std::size_t i = 0; i < a.data.size(); ++i) by[a.data.n[i]][a.data.p[i]].push_back(a.data.y[i]);
  std::vector<chart_series> out;
  int color = 0;
  for (const auto& [n, by_p] : by) {
    if (!by_p.count(a.base_p) || by_p.size() < 2) continue;
    const double t0 = median(by_p.at(a.base_p));
    chart_series s{.name = fmt::format("n = {}", format_size(n)), .color = color++};
    for (const auto& [p, ys] : by_p) {
      if (p == a.base_p) continue;
      const double e = fit::karp_flatt(t0 / median(ys), p / a.base_p);
      s.points.push_back({p, e, 0, 0, fmt::format("n = {}, p = {:g}: Karp–Flatt {:.3g}", format_size(n), p, e)});
      s.curve.emplace_back(p, e);
    }
    out.push_back(std::move(s));
  }
  return out;
}

/// A weak-scaling variant's charts: the time against p at a fixed share per chain (its class's
/// curve dashed) and the weak efficiency E_w against p.
std::string weak_html(const variant_scaling& s, int& chart_id) {
  auto time = against_p(s, "weak scaling, time", "",
                        "each count p at the size with p/p0 times the work of n0 (the same share a processor); flat is ideal; dashed: the class "
                        "of the time in p fitted",
                        s.unit == "s" ? "time" : s.unit);
  time.format_y = [u = s.unit](double y) { return format_value(y, u); };
  auto eff = against_p(s, "weak-scaling efficiency", "", "E_w = (W(n_p)/W(n0)) / (p/p0) · T(n0, p0) / T(n_p, p); 1 is perfect, 0.5 marked",
                       "weak efficiency");
  eff.format_y = [](double e) { return fmt::format("{:.2g}", e); };
  eff.levels.push_back({0.5, "E = 0.5", -1});
  eff.levels.push_back({1, "ideal", -1});
  int color = 0;
  for (const auto& w : s.weak) {
    chart_series t{.name = fmt::format("n0 = {}", format_size(w.n0)), .color = color};
    chart_series e{.name = t.name, .color = color};
    for (const auto& r : w.rows) {
      t.points.push_back({r.p, r.measured, 0, 0, fmt::format("p = {:g}, n = {}: {}", r.p, format_size(r.n), format_time(r.measured))});
      t.curve.emplace_back(r.p, r.measured);
      e.points.push_back({r.p, r.efficiency, 0, 0, fmt::format("p = {:g}, n = {}: E_w {:.2f}", r.p, format_size(r.n), r.efficiency)});
      e.curve.emplace_back(r.p, r.efficiency);
    }
    const auto& g = w.answer();
    chart_series model{.name = fmt::format("{}, n0 = {}", fit::p_text(g.growth), format_size(w.n0)), .color = color, .dashed = true};
    for (double p = w.rows.front().p; p <= w.rows.back().p * 1.0001; p *= std::pow(2.0, 0.25))
      model.curve.emplace_back(p, g.a + g.b * std::pow(p, g.growth.n) * (g.growth.log ? std::pow(std::log2(p), g.growth.log) : 1.0));
    time.series.push_back(std::move(t));
    time.series.push_back(std::move(model));
    eff.series.push_back(std::move(e));
    ++color;
  }
  std::string text;
  for (const auto& w : s.weak) text += fit::weak_text(w, s.unit);
  const auto time_svg = time.svg(fmt::format("c{}", chart_id++));
  const auto eff_svg = eff.svg(fmt::format("c{}", chart_id++));
  return fmt::format("<h3>{} {} (weak scaling)</h3>\n<div class=\"charts\">\n{}{}</div>\n<pre><code>{}</code></pre>\n", html_escape(s.problem),
                     html_escape(s.variant), time_svg, eff_svg, html_escape(text));
}

}  // namespace

std::string scaling_html(const std::vector<variant_scaling>& all, int& chart_id) {
  std::string o;
  for (const auto& s : all) {
    if (!s.weak.empty()) o += weak_html(s, chart_id);
    if (!s.analysis) continue;
    const auto& a = *s.analysis;
    const auto procs = a.data.procs();
    const double hi = a.data.sizes().back();
    auto p_axis = [](double p) { return fmt::format("{:g}", p); };
    auto speed = against_p(s, "speedup", "",
                           "T(n, p0) / T(n, p) of each size measured at the smallest count p0 (1 thread, or the smallest SM partition); dashed: the "
                           "ideal p / p0 and the model W(n)/p + D(n) at the largest size",
                           "speedup (×)");
    speed.format_y = format_ratio;
    speed.series = measured_series(a, false);
    chart_series ideal{.name = "ideal (p)", .color = -1, .dashed = true};
    chart_series model{.name = fmt::format("model, n = {}", format_size(hi)), .color = static_cast<int>(speed.series.size()), .dashed = true};
    for (double p = procs.front(); p <= procs.back() * 1.0001; p *= std::pow(2.0, 0.25)) {
      ideal.curve.emplace_back(p, p / a.base_p);
      model.curve.emplace_back(p, a.model()(hi, a.base_p) / a.model()(hi, p));
    }
    speed.series.push_back(std::move(ideal));
    speed.series.push_back(std::move(model));
    auto eff = against_p(s, "efficiency", "", "speedup / p of each size measured on one processor; 0.5 marked", "efficiency");
    eff.format_y = [](double e) { return fmt::format("{:.2g}", e); };
    eff.series = measured_series(a, true);
    eff.levels.push_back({0.5, "E = 0.5", -1});
    auto strong = against_p(s, "time", " (strong scaling)",
                            "the time of each size measured at two or more counts; dashed: the ideal T(n, p0)·p0/p of the largest size",
                            s.unit == "s" ? "time" : s.unit);
    strong.format_y = [u = s.unit](double y) { return format_value(y, u); };
    strong.series = times_against_p(a);
    auto kf = against_p(s, "Karp–Flatt serial fraction", "",
                        "e = (1/S − 1/p) / (1 − 1/p), p in units of the smallest count: flat, a serial part; rising, an overhead growing with p; "
                        "negative values (a speedup above p) are left out",
                        "serial fraction");
    kf.format_y = [](double e) { return fmt::format("{:.2g}", e); };
    kf.series = karp_flatt_against_p(a);
    chart map;
    map.title = fmt::format("{} {}: efficiency against n, per count of {}", s.problem, s.variant, s.axis);
    map.subtitle = "speedup / (p / p0) at each size, one curve per count p; 0.5 marked";
    map.x_label = "n";
    map.y_label = "efficiency";
    map.format_x = format_count;
    map.format_y = eff.format_y;
    map.levels.push_back({0.5, "E = 0.5", -1});
    map.series = efficiency_in_n(a);
    auto speed_svg = strong.svg(fmt::format("c{}", chart_id++));
    speed_svg += speed.svg(fmt::format("c{}", chart_id++));
    auto eff_svg = eff.svg(fmt::format("c{}", chart_id++));
    eff_svg += map.svg(fmt::format("c{}", chart_id++));
    if (!kf.empty()) eff_svg += kf.svg(fmt::format("c{}", chart_id++));
    // The isoefficiency curve: the n that holds E = 0.5 at each p, from the model.
    if (a.iso.exists && a.iso.sizes.size() >= 2) {
      chart iso;
      iso.title = fmt::format("{} {}: isoefficiency, the n that holds E = {:g}", s.problem, s.variant, a.iso.target);
      iso.subtitle = fmt::format("from the model W(n)/p + D(n): W must grow as {}", fit::p_text(a.iso.growth));
      iso.x_label = s.axis;
      iso.y_label = "n";
      iso.format_x = p_axis;
      iso.format_y = format_count;
      chart_series c{.name = fmt::format("n at E = {:g}", a.iso.target)};
      for (const auto& [p, n] : a.iso.sizes) {
        c.points.push_back({p, n, 0, 0, fmt::format("p = {:g}: n ≈ {}", p, format_size(n))});
        c.curve.emplace_back(p, n);
      }
      iso.series.push_back(std::move(c));
      eff_svg += iso.svg(fmt::format("c{}", chart_id++));
    }
    o += fmt::format("<h3>{} {}</h3>\n<div class=\"charts\">\n{}{}</div>\n", html_escape(s.problem), html_escape(s.variant), speed_svg, eff_svg);
    o += fmt::format("<pre><code>{}</code></pre>\n", html_escape(fit::scaling_text(a, s.unit)));
  }
  if (o.empty()) return o;
  return "<section id=\"scaling\">\n<h2>Scaling with processors</h2>\n<p class=\"meta\">Each variant measured at several processor counts, "
         "fitted as T(n, p) = W(n)/p + D(n): the work W that divides among the p processors and the part D that does not (a serial "
         "part, a barrier, a shared bus), each a class with a verdict; the speedup, efficiency and Karp–Flatt serial fraction measured "
         "at each p; the isoefficiency function. A weak-scaling run (`ema run --weak`) shows the time at a fixed share per processor and "
         "its efficiency instead (docs/scaling.md).</p>\n" +
         o + "</section>\n";
}

}  // namespace ema
