#include "report/roofline.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "core/backend.hpp"
#include "core/format.hpp"
#include "core/registry.hpp"
#include "measure/probe.hpp"
#include "measure/stats.hpp"
#include "report/columns.hpp"

namespace ema {
namespace {

/// A probed ceiling's value, or why there is none.
struct ceiling_value {
  double value = std::nan("");
  std::string why;
};

ceiling_value ceiling(const nlohmann::json& ceilings, const std::string& name) {
  if (name.empty()) return {std::nan(""), "no ceiling for this back end"};
  if (!ceilings.is_object() || !ceilings.contains(name) || !ceilings[name].is_object())
    return {std::nan(""), fmt::format("the experiment's probe predates it (no {}); a new `ema run` measures it", name)};
  const auto& c = ceilings[name];
  if (c.contains("unavailable") && c["unavailable"].is_string()) return {std::nan(""), c["unavailable"].get<std::string>()};
  if (!c.contains("value") || !c["value"].is_number() || !(c["value"].get<double>() > 0))
    return {std::nan(""), fmt::format("{} is not a positive number", name)};
  return {c["value"].get<double>(), {}};
}

std::string roof_name(backend b, const nlohmann::json& ceilings) {
  switch (b) {
    case backend::seq:
      return "CPU, 1 thread";
    case backend::omp: {
      // "16 threads, 512 MiB": the threads the probe read with.
      std::string detail;
      if (ceilings.contains("host_read_bw_all") && ceilings["host_read_bw_all"].is_object())
        detail = ceilings["host_read_bw_all"].value("detail", "");
      const auto comma = detail.find(',');
      return comma != std::string::npos && detail.find("thread") < comma ? "CPU, " + detail.substr(0, comma) : "CPU, all threads";
    }
    case backend::cuda:
      return "GPU";
    case backend::multi_gpu:
      return "all GPUs";
  }
  return "?";
}

/// Three significant digits and a decimal suffix: 21.1M, 3.89G.
std::string three_digits(double v) {
  static const char* suffix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::abs(v) >= 1000 && i < 5) v /= 1000, ++i;
  return fmt::format("{:.3g}{}", v, suffix[i]);
}

std::string format_rate_of(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "-";
  if (unit == "FLOP") return format_value(v, "FLOP/s");
  return fmt::format("{} {}/s", three_digits(v), unit);
}

/// A fraction of a roof; two significant digits below 0.1%, where one decimal would read 0.0%.
std::string format_fraction(double f) { return f < 0.001 && f > 0 ? fmt::format("{:.2g}%", 100 * f) : format_percent(f); }

std::string format_intensity(double v, const std::string& unit) { return fmt::format("{:.3g} {}/B", v, unit == "FLOP" ? "FLOP" : unit); }

}  // namespace

roofline roofline_of(const experiment_view& v, const std::string& problem, const std::string& params_json) {
  roofline r;
  r.problem = problem;
  r.params_json = params_json;
  const problem_desc* desc = lookup_problem(problem);
  if (!desc || !desc->work) {
    r.missing.push_back(desc ? "the problem has no work model" : "a program ema does not know has no work model (bytes and operations)");
    return r;
  }
  const auto& ceilings = v.experiment.ceilings;
  // The rows of the result tables: a variant at one size, its input instances pooled.
  std::map<std::pair<std::string, std::uint64_t>, std::vector<const point_view*>> rows;
  std::vector<std::string> order;
  for (const auto& p : v.points) {
    if (p.record.problem != problem || p.record.params_json != params_json || p.record.status != point_status::ok) continue;
    if (!p.parameters().declared) continue;
    if (std::find(order.begin(), order.end(), p.record.variant) == order.end()) order.push_back(p.record.variant);
    rows[{p.record.variant, p.record.n}].push_back(&p);
  }
  if (rows.empty()) return r;
  const auto& declared = *rows.begin()->second.front()->parameters().declared;
  const flop_model flops = desc->flops ? desc->flops(declared) : flop_model{};
  const bool counts_flops = flops.per_op > 0;
  r.unit = counts_flops ? "FLOP" : desc->op_unit;
  if (!counts_flops) r.missing.push_back(fmt::format("{} are not floating-point arithmetic: the memory roof alone", desc->op_unit));

  std::map<std::string, std::optional<std::size_t>> roof_of;  // per back end: its roof, or none
  auto roof_for = [&](const std::string& variant, const std::string& backend_text) -> std::optional<std::size_t> {
    if (auto it = roof_of.find(backend_text); it != roof_of.end()) return it->second;
    const auto b = backend_from_string(backend_text);
    auto& slot = roof_of[backend_text];
    if (!b) {
      r.missing.push_back(fmt::format("{}: back end '{}' has no probed ceiling", variant, backend_text));
      return slot;
    }
    const summary_desc* bandwidth = declared_bandwidth(desc);
    roof f;
    f.backend = backend_text;
    f.name = roof_name(*b, ceilings);
    f.bandwidth_ceiling = *b == backend::cuda ? (bandwidth ? bandwidth->gpu_ceiling : "device_read_bw") : ceiling_for_backend(backend_text);
    const auto bw = ceiling(ceilings, f.bandwidth_ceiling);
    if (!std::isfinite(bw.value)) {
      r.missing.push_back(fmt::format("the {} variants: no memory roof: {}", backend_text, bw.why));
      return slot;
    }
    f.bandwidth = bw.value;
    if (counts_flops) {
      f.peak_ceiling = compute_ceiling_for_backend(backend_text, flops.f64);
      const auto peak = ceiling(ceilings, f.peak_ceiling);
      f.peak = peak.value;
      if (!std::isfinite(peak.value)) r.missing.push_back(fmt::format("the {} variants: no compute roof: {}", backend_text, peak.why));
    }
    r.roofs.push_back(std::move(f));
    slot = r.roofs.size() - 1;
    return slot;
  };

  for (const auto& variant : order)
    for (const auto& [key, points] : rows) {
      if (key.first != variant) continue;
      const auto roof = roof_for(variant, points.front()->record.backend);
      if (!roof) break;
      // The time the tables' rate uses: the kernel's where the variant records one, else the total.
      const double kernel = pooled_median(points, "kernel");
      const double t = std::isfinite(kernel) ? kernel : pooled_median(points, "total");
      const auto w = desc->work(key.second, *points.front()->parameters().declared);
      double ops = w.ops, bytes = w.bytes;
      if (const char* field = desc->rate.work_field) {
        // Operations the input decides (bfs's edges reached): the instances' mean; the model's
        // bytes scale with its operations, so its intensity is kept.
        double sum = 0;
        int counted = 0;
        for (auto* p : points)
          if (p->result.is_object() && p->result.contains(field) && p->result[field].is_number()) sum += p->result[field].get<double>(), ++counted;
        if (!counted) continue;
        if (w.ops > 0) bytes *= sum / counted / w.ops;
        ops = sum / counted;
      }
      const double per_op = counts_flops ? flops.per_op : 1.0;
      if (!(ops > 0 && bytes > 0 && t > 0 && std::isfinite(t))) continue;
      r.points.push_back({variant, key.second, ops * per_op / bytes, ops * per_op / t, *roof});
    }
  return r;
}

chart roofline_chart(const roofline& r, const std::function<int(const std::string&)>& color) {
  chart c;
  if (r.empty()) return c;
  const bool flop = r.unit == "FLOP";
  c.title = "Roofline";
  c.subtitle = fmt::format(
      "Each point: a variant at one size, placed by the {0} its work model does per byte it must move (x) and the {0} per second it "
      "achieved (y, over its kernel time where it records one). Grey lines: the probed roofs of each back end — memory bandwidth "
      "times intensity{1}.",
      r.unit, flop ? ", capped by the FMA pipes' throughput" : "");
  c.x_label = fmt::format("intensity ({} per byte)", r.unit);
  c.y_label = fmt::format("{} per second", r.unit);
  c.format_x = [](double x) { return x >= 1000 ? format_count(x) : fmt::format("{:.3g}", x); };
  c.format_y = format_count;
  double lo = INFINITY, hi = 0;
  for (const auto& p : r.points) lo = std::min(lo, p.intensity), hi = std::max(hi, p.intensity);
  for (const auto& f : r.roofs)
    if (std::isfinite(f.peak)) hi = std::max(hi, 2 * f.peak / f.bandwidth);  // the ridge, in view
  lo /= 4;
  hi *= 4;
  for (const auto& f : r.roofs) {
    chart_series s;
    s.name = fmt::format("roof, {}: {}{}", f.name, format_rate(f.bandwidth),
                         std::isfinite(f.peak) ? ", " + format_rate_of(f.peak, r.unit) : std::string());
    s.color = -1;
    s.dashed = true;
    s.curve_label = f.name;
    s.curve.emplace_back(lo, f.attainable(lo));
    if (std::isfinite(f.peak) && f.peak / f.bandwidth > lo && f.peak / f.bandwidth < hi) s.curve.emplace_back(f.peak / f.bandwidth, f.peak);
    s.curve.emplace_back(hi, f.attainable(hi));
    c.series.push_back(std::move(s));
  }
  std::vector<std::string> variants;
  for (const auto& p : r.points)
    if (std::find(variants.begin(), variants.end(), p.variant) == variants.end()) variants.push_back(p.variant);
  for (const auto& variant : variants) {
    chart_series s;
    s.name = variant;
    s.color = color(variant);
    for (const auto& p : r.points) {
      if (p.variant != variant) continue;
      const auto& f = r.roofs[p.roof_index];
      s.points.push_back({p.intensity, p.achieved, 0, 0,
                          fmt::format("{} n={}: {} at {}; {} of its roof ({}: {}-bound there)", variant, format_size(static_cast<double>(p.n)),
                                      format_rate_of(p.achieved, r.unit), format_intensity(p.intensity, r.unit), format_fraction(p.fraction(r.roofs)),
                                      f.name, f.memory_bound(p.intensity) ? "memory" : "compute")});
    }
    c.series.push_back(std::move(s));
  }
  return c;
}

std::string render_roofline(const roofline& r, table_style style) {
  if (r.empty()) return {};
  grid g;
  g.columns = {{"variant", false}, {"n", true},          {"intensity", true}, {"achieved", true},
               {"roof", false},    {"roof there", true}, {"of roof", true},   {"bound by", false}};
  std::vector<std::string> variants;
  for (const auto& p : r.points)
    if (std::find(variants.begin(), variants.end(), p.variant) == variants.end()) variants.push_back(p.variant);
  bool above = false;
  for (const auto& variant : variants) {
    const roofline_point* last = nullptr;
    for (const auto& p : r.points)
      if (p.variant == variant && (!last || p.n > last->n)) last = &p;
    const auto& f = r.roofs[last->roof_index];
    const double fraction = last->fraction(r.roofs);
    above |= fraction > 1;
    const bool memory = f.memory_bound(last->intensity);
    g.rows.push_back({variant, format_size(static_cast<double>(last->n)), format_intensity(last->intensity, r.unit),
                      format_rate_of(last->achieved, r.unit), f.name, format_rate_of(f.attainable(last->intensity), r.unit),
                      format_fraction(fraction),
                      memory ? fmt::format("memory ({})", format_rate(f.bandwidth)) : fmt::format("compute ({})", format_rate_of(f.peak, r.unit))});
  }
  std::string o = render(g, style);
  const char* bullet = style == table_style::markdown ? "- " : "  ";
  o += fmt::format(
      "{}At each variant's largest size. Intensity: the work model's {} per byte it must move (the fewest bytes any algorithm moves): a "
      "variant that moves more runs at a lower intensity, under a lower memory roof, than shown. The roof: the probed memory bandwidth of "
      "the back end times the intensity{}.\n",
      style == table_style::markdown ? "\n" + std::string(bullet) : std::string(bullet), r.unit,
      r.unit == "FLOP" ? ", capped by its FMA throughput (no tensor cores)" : "");
  if (above)
    o += fmt::format(
        "{}Over 100% of the roof: the bytes came from a cache faster than the probed memory (the input fits in it, or the variant "
        "reuses it across steps).\n",
        bullet);
  for (const auto& m : r.missing) o += fmt::format("{}{}.\n", bullet, stored_text(m, style));
  return o;
}

}  // namespace ema
