#include "report/document.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <sstream>

#include "core/backend.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/registry.hpp"
#include "core/text.hpp"
#include "measure/stats.hpp"
#include "report/analysis_tables.hpp"
#include "core/format.hpp"
#include "report/axis_best.hpp"
#include "report/roofline.hpp"
#include "report/scaling.hpp"
#include "report/summary.hpp"
#include "report/svg_chart.hpp"
#include "report/table.hpp"

namespace ema {
namespace {

constexpr const char* style_sheet = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; margin: 0 auto; max-width: 1500px; padding: 0 24px 48px; }
h1 { font-size: 24px; margin: 24px 0 4px; } h2 { font-size: 20px; margin: 36px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 24px 0 8px; } h4 { font-size: 14px; margin: 18px 0 6px; }
.meta { color: #555; margin: 2px 0; } code { font: 12px ui-monospace, Menlo, Consolas, monospace; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 12px; }
svg.chart { width: 100%; height: auto; background: #fff; border: 1px solid #e4e4e4; border-radius: 4px; }
table { border-collapse: collapse; margin: 6px 0 10px; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; } th { background: #f4f4f4; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; } ul { margin: 4px 0 10px; padding-left: 20px; }
details { margin: 8px 0; } summary { cursor: pointer; font-weight: 600; } nav a { margin-right: 12px; }
li.sub { margin-left: 20px; list-style: circle; } #overview table { font-size: 13px; } #overview { margin-bottom: 16px; }
)css";

// The charts' own rules: in the page, and in each chart `ema report --svg` writes on its own.
constexpr const char* chart_style = R"css(
svg .title { font-size: 13px; font-weight: 600; fill: #222; } svg .tick { font-size: 10px; fill: #555; }
svg .label { font-size: 11px; fill: #333; } svg .plot { fill: #fcfcfc; stroke: #ccc; }
svg .grid { stroke: #eee; } svg .curve { fill: none; stroke-width: 1.8; } svg .curve.dashed { stroke-dasharray: 5 3; }
svg .band { opacity: 0.16; stroke: none; } svg .whisker { stroke-width: 1; opacity: 0.7; }
svg .marker { stroke-dasharray: 3 3; stroke-width: 1.2; } svg .marker-label { font-size: 10px; }
svg .legend { cursor: pointer; font-size: 11px; } svg .legend.off { opacity: 0.35; } svg .series.off { display: none; }
)css";

// Shows and hides a series when its legend entry is clicked; marks the page ready for checks.
constexpr const char* script = R"js(
document.querySelectorAll('svg.chart .legend').forEach(function (entry) {
  function toggle() {
    var svg = entry.closest('svg');
    var target = svg.querySelector('[data-series="' + entry.getAttribute('data-target') + '"]');
    if (!target) return;
    target.classList.toggle('off');
    entry.classList.toggle('off');
  }
  entry.addEventListener('click', toggle);
  entry.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') toggle(); });
});
// Where the overview lies on the page, in CSS pixels from the top, for the browser test (its
// table must end within the first screen).
var overview = document.querySelector('#overview table');
if (overview) {
  var box = overview.getBoundingClientRect();
  document.body.setAttribute('data-overview', Math.round(box.top + window.scrollY) + ',' + Math.round(box.bottom + window.scrollY));
}
document.body.setAttribute('data-ready', String(document.querySelectorAll('svg.chart').length));
)js";

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {  // an escape: kept for markdown_unescape
      cur += line[i];
      cur += line[++i];
    } else if (line[i] == '|') {
      while (!cur.empty() && cur.back() == ' ') cur.pop_back();
      cells.push_back(cur.substr(cur.find_first_not_of(' ') == std::string::npos ? cur.size() : cur.find_first_not_of(' ')));
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  return cells;
}

// A line of ema's Markdown as HTML: `code spans` (a backtick not escaped by markdown_text) as
// <code>, everything escaped.
std::string inline_html(const std::string& md) {
  std::string out, seg;
  bool code = false;
  for (std::size_t i = 0; i < md.size(); ++i) {
    if (md[i] == '\\' && i + 1 < md.size()) {
      seg += md[i];
      seg += md[++i];
    } else if (md[i] == '`' && (code || md.find('`', i + 1) != std::string::npos)) {
      out += code ? "<code>" + html_escape(seg) + "</code>" : html_escape(markdown_unescape(seg));
      seg.clear();
      code = !code;
    } else {
      seg += md[i];
    }
  }
  return out + html_escape(markdown_unescape(seg));
}

// The Markdown ema's printers write (headings, pipe tables, bullets, paragraphs) as HTML, every
// piece of text escaped. `shift` lowers heading levels.
std::string markdown_to_html(const std::string& md, int shift) {
  std::istringstream in(md);
  std::string line, out;
  std::vector<std::string> table;
  bool list = false;
  auto flush = [&] {
    if (list) out += "</ul>\n", list = false;
    if (table.size() >= 2) {
      const auto head = split_cells(table[0]), align = split_cells(table[1]);
      out += "<table><thead><tr>";
      for (const auto& h : head) out += "<th>" + html_escape(markdown_unescape(h)) + "</th>";
      out += "</tr></thead><tbody>\n";
      for (std::size_t r = 2; r < table.size(); ++r) {
        out += "<tr>";
        const auto cells = split_cells(table[r]);
        for (std::size_t c = 0; c < cells.size(); ++c) {
          const bool num = c < align.size() && !align[c].empty() && align[c].back() == ':';
          out += std::string(num ? "<td class=\"num\">" : "<td>") + html_escape(markdown_unescape(cells[c])) + "</td>";
        }
        out += "</tr>\n";
      }
      out += "</tbody></table>\n";
    }
    table.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '|') {
      if (list) out += "</ul>\n", list = false;
      table.push_back(line);
      continue;
    }
    flush();
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    if (line[0] == '#') {
      const auto level = line.find_first_not_of('#');
      const int h = std::min(6, static_cast<int>(level) + shift);
      const auto text = line.find_first_not_of(' ', level);
      out += fmt::format("<h{0}>{1}</h{0}>\n", h, html_escape(markdown_unescape(text == std::string::npos ? "" : line.substr(text))));
    } else if (line.compare(first, 2, "- ") == 0) {
      if (!list) out += "<ul>\n", list = true;
      // "-   - reason": an item under the one above it, one bullet, indented.
      auto text = line.substr(first + 2);
      const auto inner = text.find_first_not_of(' ');
      const bool sub_item = inner != std::string::npos && text.compare(inner, 2, "- ") == 0;
      if (sub_item) text = text.substr(inner + 2);
      out += std::string(sub_item ? "<li class=\"sub\">" : "<li>") + inline_html(text) + "</li>\n";
    } else {
      out += "<p>" + inline_html(line.substr(first)) + "</p>\n";
    }
  }
  flush();
  return out;
}

std::function<std::string(double)> value_format(const std::string& unit) {
  if (unit == "B") return format_bytes;
  if (unit == "J") return format_energy;
  return format_time;
}

struct group {
  std::string problem, params_json;
  std::vector<const point_view*> points;
  std::vector<std::pair<std::string, std::string>> variants;  // name, back end, in table order

  int color(const std::string& variant) const {
    for (std::size_t i = 0; i < variants.size(); ++i)
      if (variants[i].first == variant) return static_cast<int>(i);
    return 0;
  }
  // Median per n of a variant's point medians (instances pooled).
  std::map<std::uint64_t, double> medians(const std::string& variant, const std::string& metric) const {
    std::map<std::uint64_t, std::vector<double>> by_n;
    for (auto* p : points)
      if (p->record.variant == variant && p->record.status == point_status::ok && std::isfinite(p->median(metric)))
        by_n[p->record.n].push_back(p->median(metric));
    std::map<std::uint64_t, double> out;
    for (auto& [n, v] : by_n) out[n] = median(v);
    return out;
  }
};

std::vector<group> groups_of(const experiment_view& v) {
  std::vector<group> out;
  for (const auto& p : v.points) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const group& g) { return g.problem == p.record.problem && g.params_json == p.record.params_json; });
    if (it == out.end()) {
      out.push_back({p.record.problem, p.record.params_json, {}, {}});
      it = std::prev(out.end());
    }
    it->points.push_back(&p);
    if (std::none_of(it->variants.begin(), it->variants.end(), [&](const auto& x) { return x.first == p.record.variant; }))
      it->variants.emplace_back(p.record.variant, p.record.backend);
  }
  for (auto& g : out)
    std::stable_sort(g.variants.begin(), g.variants.end(), [](const auto& a, const auto& b) {
      return std::pair{backend_order(a.second), a.first} < std::pair{backend_order(b.second), b.first};
    });
  return out;
}

const variant_fit* find_fit(const fits_by_metric& fits, const std::string& metric, const group& g, const std::string& variant) {
  auto it = fits.find(metric);
  if (it == fits.end()) return nullptr;
  for (const auto& f : it->second)
    if (f.problem == g.problem && f.params_json == g.params_json && f.variant == variant) return &f;
  return nullptr;
}

/// The x axis of a problem's charts: n and what it counts ("n: vertices of the graph").
std::string size_label(const std::string& problem) {
  for (auto* d : problems())
    if (problem == d->name && d->size_meaning && *d->size_meaning) return fmt::format("n: {}", d->size_meaning);
  return "n";
}

/// A metric's y axis in words: "time (s)", "memory (B)", "energy (J)".
std::string value_label(const metric_info& info) {
  const std::string unit = info.unit;
  return unit == "B" ? "memory (B)" : unit == "J" ? "energy (J)" : unit == "s" ? "time (s)" : fmt::format("value ({})", unit);
}

chart metric_chart(const group& g, const std::string& metric, const fits_by_metric& fits) {
  const auto info = find_metric(metric);
  chart c;
  c.title = *info.title ? std::string(info.title) : fmt::format("Time of the phase '{}'", metric);
  c.subtitle = fmt::format("{} (metric {}): {}", c.title, metric, info.description);
  c.x_label = size_label(g.problem);
  c.y_label = value_label(info);
  c.format_y = value_format(info.unit);
  c.binary_y = info.unit == std::string("B");
  double gpu_threads = 0;
  for (const auto& [variant, backend] : g.variants) {
    chart_series s;
    s.name = variant;
    s.color = g.color(variant);
    for (auto* p : g.points) {
      if (p->record.variant != variant || p->record.status != point_status::ok) continue;
      auto it = p->metrics.find(metric);
      if (it == p->metrics.end() || !it->second.stats.count) continue;
      const auto& st = it->second.stats;
      const double q1 = quantile(it->second.values, 0.25), q3 = quantile(it->second.values, 0.75);
      s.points.push_back({static_cast<double>(p->record.n), st.median, q1, q3,
                          fmt::format("{} n={}: median {} (interquartile {} – {}; min {}, max {}; {} samples)", variant, p->record.n,
                                      format_value(st.median, info.unit), format_value(q1, info.unit), format_value(q3, info.unit),
                                      format_value(st.min, info.unit), format_value(st.max, info.unit), st.count)});
    }
    if (s.points.empty()) continue;
    if (const auto* f = find_fit(fits, metric, g, variant); f && f->analysis && f->analysis->verdict.level == fit::verdict_level::inconclusive) {
      // No answer to draw: the points alone, and the legend says why there is no curve.
      s.name += " — inconclusive fit";
    } else if (f && f->analysis) {
      const auto& a = *f->analysis;
      const auto sizes = a.data.sizes();
      // The curve over the regime the groups describe: above the knee, or past a cache's edge.
      const double from = a.regime_from > 0 ? a.regime_from : sizes.front(), to = sizes.back();
      for (int k = 0; k <= 64; ++k) {
        const double n = from * std::pow(to / from, k / 64.0);
        s.curve.emplace_back(n, a.groups.best(n));
      }
      for (const auto& b : a.uncertainty.band) {
        s.band_lo.emplace_back(b.n, b.lo);
        s.band_hi.emplace_back(b.n, b.hi);
      }
      s.name += " — " + a.groups.best.theta().text() + (a.verdict.level == fit::verdict_level::tentative ? " (tentative)" : "");
      // A memory metric's knee is where the data outgrow the process's baseline, not a saturation.
      if (a.knee && info.unit != std::string("B"))
        c.markers.push_back({a.knee->where.n, fmt::format("knee {} ≈ {}", variant, format_count(a.knee->where.n)), s.color});
      else if (!a.knee && a.regime_from > 0)
        for (const auto& b : a.breakpoints)
          if (!b.cache.empty()) c.markers.push_back({b.n, fmt::format("{} {} filled ≈ {}", variant, b.cache, format_count(b.n)), s.color});
      if (f->resident_threads) gpu_threads = *f->resident_threads;
    }
    c.series.push_back(std::move(s));
  }
  // The source's saturation point: where n reaches the threads the GPU runs at once, drawn beside the
  // knees (exact when a variant maps one element to one thread, a reference otherwise).
  if (gpu_threads > 0 && !c.markers.empty())
    c.markers.push_back({gpu_threads, fmt::format("GPU resident threads {}", format_count(gpu_threads)), -1});
  return c;
}

/// T(reference) / T(variant) of the medians of total time at each size both ran.
chart_series speedup_series(const group& g, const std::string& variant, const std::string& reference, std::string name) {
  chart_series s;
  s.name = std::move(name);
  s.color = g.color(variant);
  const auto ref = g.medians(reference, "total");
  for (const auto& [n, t] : g.medians(variant, "total"))
    if (auto it = ref.find(n); it != ref.end() && t > 0) {
      const double fs = it->second / t;
      s.points.push_back({static_cast<double>(n), fs, 0, 0, fmt::format("{} n={}: {} against {}", variant, n, format_ratio(fs), reference)});
      s.curve.emplace_back(static_cast<double>(n), fs);
    }
  return s;
}

/// The speedup of every variant against its baseline on back end `kind` (registry.hpp,
/// speedup_baseline: the same algorithm's seq, else the reference algorithm's), one chart per
/// problem; a variant that is its own baseline is left out.
chart speedup_chart(const group& g, const std::vector<variant_identity>& identities, backend kind) {
  chart c;
  const auto base = to_string(kind);
  c.subtitle = fmt::format(
      "T(baseline) / T(variant) of the total time: each variant against the same algorithm's {} variant, else the "
      "reference algorithm's",
      base);
  c.x_label = size_label(g.problem);
  c.format_y = format_ratio;
  c.levels.push_back({1, "1× (as fast as the baseline)", -1});
  auto present = [&](std::string_view v) { return std::any_of(g.variants.begin(), g.variants.end(), [&](const auto& x) { return x.first == v; }); };
  std::vector<std::string> references;  // the baselines the chart uses, named in its title
  for (const auto& [variant, backend] : g.variants) {
    const auto reference = speedup_baseline_among(identities, g.problem, variant, kind, present);
    if (reference.empty() || reference == variant) continue;
    auto s = speedup_series(g, variant, reference, fmt::format("{} (vs {})", variant, reference));
    if (s.points.empty()) continue;
    c.series.push_back(std::move(s));
    if (std::find(references.begin(), references.end(), reference) == references.end()) references.push_back(reference);
  }
  c.title = references.size() == 1 ? fmt::format("Speedup against {}", references.front())
                                   : fmt::format("Speedup, each variant against its baseline ({})", fmt::join(references, ", "));
  c.y_label = references.size() == 1 ? fmt::format("speedup against {} (×)", references.front()) : "speedup (×)";
  return c;
}

/// `ema exec`'s programs against the first one run (named on the command line first): a user's
/// programs have no seq or omp variant to be compared with unless they are named so.
chart relative_chart(const group& g) {
  chart c;
  const auto first = g.points.front()->record.variant;  // the first in the plan: the first --run
  c.title = fmt::format("Speedup against {}", first);
  c.subtitle = fmt::format("the programs against {}: T({}) / T(program), total time", first, first);
  c.x_label = "n";
  c.y_label = fmt::format("speedup against {} (×)", first);
  c.format_y = format_ratio;
  c.levels.push_back({1, fmt::format("1× (as fast as {})", first), -1});
  for (const auto& [variant, backend] : g.variants) {
    if (variant == first) continue;
    auto s = speedup_series(g, variant, first, variant);
    if (!s.points.empty()) c.series.push_back(std::move(s));
  }
  return c;
}

chart phase_chart(const group& g, const std::string& variant) {
  chart c;
  c.title = fmt::format("Where the time of {} goes", variant);
  c.x_label = size_label(g.problem);
  c.y_label = "time (s)";
  c.format_y = format_time;
  const auto total = g.medians(variant, "total"), kernel = g.medians(variant, "kernel");
  const auto h2d = g.medians(variant, "h2d"), d2h = g.medians(variant, "d2h");
  const auto alloc = g.medians(variant, "alloc"), release = g.medians(variant, "free");
  auto at = [](const std::map<std::uint64_t, double>& m, std::uint64_t n) {
    auto it = m.find(n);
    return it == m.end() ? 0.0 : it->second;
  };
  std::vector<std::pair<std::string, std::function<double(std::uint64_t)>>> parts = {
      {"total", [&](std::uint64_t n) { return at(total, n); }},
      {"kernel", [&](std::uint64_t n) { return at(kernel, n); }},
      {"transfers (h2d + d2h)", [&](std::uint64_t n) { return at(h2d, n) + at(d2h, n); }},
      {"allocation (alloc + free)", [&](std::uint64_t n) { return at(alloc, n) + at(release, n); }},
      {"overhead (the rest)",
       [&](std::uint64_t n) { return at(total, n) - at(kernel, n) - at(h2d, n) - at(d2h, n) - at(alloc, n) - at(release, n); }}};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    chart_series s;
    s.name = parts[i].first;
    s.color = static_cast<int>(i);
    s.dashed = i == 0;
    for (const auto& [n, t] : total) {
      const double v = parts[i].second(n);
      if (v > 0) {
        s.points.push_back({static_cast<double>(n), v, 0, 0, fmt::format("{} n={}: {}", parts[i].first, n, format_time(v))});
        s.curve.emplace_back(static_cast<double>(n), v);
      }
    }
    if (!s.points.empty()) c.series.push_back(std::move(s));
  }
  return c;
}

std::vector<variant_fit> fits_of(const fits_by_metric& fits, const std::string& metric, const group& g) {
  std::vector<variant_fit> out;
  if (auto it = fits.find(metric); it != fits.end())
    for (const auto& f : it->second)
      if (f.problem == g.problem && f.params_json == g.params_json) out.push_back(f);
  return out;
}

// The parameters that vary among a problem's points: the axes of a sweep (core/axes.hpp).
std::vector<std::pair<std::string, std::vector<std::string>>> swept_parameters(const experiment_view& v, const std::string& problem) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& p : v.points)
    if (p.record.problem == problem && p.params.is_object())
      for (const auto& [k, val] : p.params.items()) values[k].insert(val.is_string() ? val.get<std::string>() : val.dump());
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& [k, vs] : values)
    if (vs.size() > 1) out.emplace_back(k, std::vector<std::string>(vs.begin(), vs.end()));
  return out;
}

/// Median total time against a numeric axis, one series per size (at most six, spread evenly),
/// for one variant and setting of the other parameters: where the best value lies and how it moves
/// with n. Empty when the axis has a value that is not a positive number.
chart axis_chart(const experiment_view& v, const std::string& problem, const std::string& others, const std::string& variant,
                 const std::string& key) {
  chart c;
  c.title = fmt::format("Total time of {} against {}", variant, key);
  const auto shown = params_text(others, ", ", problem);
  c.subtitle = shown.empty() ? c.title : fmt::format("{} ({})", c.title, shown);
  c.x_label = key;
  c.y_label = "total (s)";
  c.format_x = [](double x) { return fmt::format("{:g}", x); };
  c.format_y = format_time;
  std::map<std::uint64_t, std::map<double, std::vector<double>>> by_n;
  for (const auto& p : v.points) {
    if (p.record.problem != problem || p.record.variant != variant || p.record.status != point_status::ok) continue;
    if (!p.params.is_object() || !p.params.contains(key)) continue;
    auto rest = p.params;
    rest.erase(key);
    if (rest.dump() != others) continue;
    const auto text = p.params[key].is_string() ? p.params[key].get<std::string>() : p.params[key].dump();
    double x = 0;
    try {
      x = std::stod(text);
    } catch (...) {
      return {};
    }
    if (!(x > 0) || !std::isfinite(p.median("total"))) continue;
    by_n[p.record.n][x].push_back(p.median("total"));
  }
  std::vector<std::uint64_t> sizes;
  for (const auto& [n, xs] : by_n)
    if (xs.size() > 1) sizes.push_back(n);
  const std::size_t shown_sizes = std::min<std::size_t>(6, sizes.size());
  for (std::size_t i = 0; i < shown_sizes; ++i) {
    const auto n = sizes[shown_sizes == 1 ? 0 : i * (sizes.size() - 1) / (shown_sizes - 1)];
    chart_series s;
    s.name = fmt::format("n = {}", format_size(static_cast<double>(n)));
    s.color = static_cast<int>(i);
    for (const auto& [x, ts] : by_n.at(n)) {
      const double t = median(ts);
      s.points.push_back({x, t, 0, 0, fmt::format("n={} {}={:g}: {}", n, key, x, format_time(t))});
      s.curve.emplace_back(x, t);
    }
    c.series.push_back(std::move(s));
  }
  return c;
}

}  // namespace

std::vector<std::string> report_metrics(const experiment_view& v) {
  std::vector<std::string> out;
  const auto present = experiment_metrics(v);
  for (const auto& m : metric_catalog())
    if (present.count(m.name) && m.charted) out.push_back(m.name);
  for (const auto& m : present)
    if (find_metric(m).name[0] == '\0') out.push_back(m);  // phases a variant or program reported, not catalogued
  return out;
}

namespace {

/// One problem and parameter set's section of the HTML report: its summary, its charts, and the
/// equations of every metric fitted.
std::string group_section(const experiment_view& v, const fits_by_metric& fits, const std::vector<std::string>& metrics,
                          const std::vector<group>& groups, std::size_t gi, int& chart_id) {
  std::string o;
  const auto& g = groups[gi];
  const problem_desc* desc = nullptr;
  for (auto* d : problems())
    if (g.problem == d->name) desc = d;
  o += fmt::format("<section id=\"g{}\">\n<h2>{}{}</h2>\n", gi, html_escape(g.problem),
                   params_text(g.params_json, ", ", g.problem).empty() ? "" : " (" + html_escape(params_text(g.params_json, ", ", g.problem)) + ")");
  if (desc)
    o += fmt::format("<p class=\"meta\">{} — n: {} — source: {}</p>\n", html_escape(desc->title), html_escape(desc->size_meaning),
                     html_escape(desc->source));
  {
    const auto it = fits.find("total");
    const auto summary =
        render_summary(v, g.problem, g.params_json, it == fits.end() ? std::vector<variant_fit>{} : it->second, table_style::markdown);
    if (!summary.empty()) o += "<h3>Summary</h3>\n" + markdown_to_html(summary, 2);
  }
  o += "<div class=\"charts\">\n";
  auto add = [&](const chart& c) {
    if (!c.empty()) o += c.svg(fmt::format("c{}", chart_id++));
  };
  for (const auto& m : metrics) add(metric_chart(g, m, fits));
  const auto identities = variant_identities(v, g.problem);
  const auto speedups = speedup_chart(g, identities, backend::seq);
  add(speedups);
  if (speedups.empty() && g.variants.size() > 1 && g.variants.front().second == "external") add(relative_chart(g));
  // Where the time goes: a GPU variant's copies and kernel; a CPU variant's kernel is nearly all
  // its total, so its charts are folded away.
  std::string cpu_phases;
  for (const auto& [variant, backend] : g.variants) {
    if (g.medians(variant, "kernel").empty()) continue;
    const auto b = backend_from_string(backend);
    if (b && uses_gpu(*b)) {
      add(phase_chart(g, variant));
    } else if (const auto c = phase_chart(g, variant); !c.empty()) {
      cpu_phases += c.svg(fmt::format("c{}", chart_id++));
    }
  }
  const auto roofs = roofline_of(v, g.problem, g.params_json);
  add(roofline_chart(roofs, [&](const std::string& variant) { return g.color(variant); }));
  o += "</div>\n";
  if (!roofs.empty())
    o += "<details><summary>roofline: how far each variant runs from its roof, and what bounds it</summary>\n" +
         markdown_to_html(render_roofline(roofs, table_style::markdown), 2) + "</details>\n";
  if (!cpu_phases.empty())
    o += "<details><summary>where the time goes, CPU variants (their kernel time is nearly all their total)</summary>\n<div class=\"charts\">\n" +
         cpu_phases + "</div>\n</details>\n";
  o += "<p class=\"meta\">Points: the median of each point's samples, whiskers its interquartile range (hover for the "
       "minimum and maximum); "
       "lines: the best equation of `ema fit` with its 95% bootstrap band, drawn above the knee when there is one. "
       "Click a legend entry to hide or show its series.</p>\n";
  for (const auto& m : metrics) {
    const auto f = fits_of(fits, m, g);
    if (f.empty()) continue;
    const bool open = m == "total";
    o += fmt::format("<details{}><summary>equations of {}</summary>\n{}</details>\n", open ? " open" : "", html_escape(m),
                     markdown_to_html(render_fits(f, table_style::markdown), 2));
  }
  o += "</section>\n";

  return o;
}

/// Parameter axes: per problem and swept parameter, the best value per size and variant, and the
/// time against the axis where its values are numbers.
std::string axes_sections(const experiment_view& v, const std::vector<group>& groups, int& chart_id) {
  std::string o;
  {
    std::set<std::string> seen;
    for (const auto& g : groups) {
      if (!seen.insert(g.problem).second) continue;
      for (const auto& [key, values] : swept_parameters(v, g.problem)) {
        std::string best;
        try {
          best = render_best(v, key, table_style::markdown);
        } catch (const usage_error&) {
          continue;  // varies only between parameter sets that share no size and variant
        }
        o += fmt::format("<section>\n<h2>{}: the parameter {}</h2>\n", html_escape(g.problem), html_escape(key));
        o += markdown_to_html(best, 1);
        o += "<div class=\"charts\">\n";
        std::set<std::pair<std::string, std::string>> drawn;
        for (const auto& p : v.points) {
          if (p.record.problem != g.problem || !p.params.is_object() || !p.params.contains(key)) continue;
          auto rest = p.params;
          rest.erase(key);
          if (!drawn.insert({rest.dump(), p.record.variant}).second) continue;
          const auto c = axis_chart(v, g.problem, rest.dump(), p.record.variant, key);
          if (!c.empty()) o += c.svg(fmt::format("c{}", chart_id++));
        }
        o += "</div>\n</section>\n";
      }
    }
  }
  return o;
}

}  // namespace

std::string render_html(const experiment_view& v, const fits_by_metric& fits) {
  const auto& e = v.experiment;
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += fmt::format("<title>ema report — experiment {}</title>\n<style>{}{}</style>\n</head>\n<body>\n", e.id, style_sheet, chart_style);
  o += fmt::format("<h1>ema report — experiment {}</h1>\n", e.id);
  o += fmt::format("<p class=\"meta\">{} · started {} · finished {}</p>\n", html_escape(e.state), html_escape(e.created_at),
                   html_escape(e.finished_at.empty() ? "-" : e.finished_at));
  o += fmt::format("<p class=\"meta\">command: <code>{}</code></p>\n", html_escape(e.command_line));
  o += fmt::format("<p class=\"meta\">ema {} (commit {})</p>\n", html_escape(e.ema_version), html_escape(e.git_commit));
  const auto groups = groups_of(v);
  o += "<nav>";
  for (std::size_t i = 0; i < groups.size(); ++i)
    o += fmt::format("<a href=\"#g{}\">{}{}</a>", i, html_escape(groups[i].problem),
                     params_text(groups[i].params_json, ", ", groups[i].problem).empty()
                         ? ""
                         : " (" + html_escape(params_text(groups[i].params_json, ", ", groups[i].problem)) + ")");
  o += "<a href=\"#tables\">tables</a><a href=\"#machine\">machine</a></nav>\n";
  // The answer first (issue 31, item 2): every problem on one screen, before any section.
  if (const auto it = fits.find("total"); it != fits.end())
    if (const auto overview = render_overview(v, it->second, table_style::markdown); !overview.empty())
      o += "<section id=\"overview\">\n<h2>Overview</h2>\n<p class=\"meta\">Per variant: the sizes over which it is the fastest (median total "
           "time), how its total time grows with n (the best equation's class, the exponent of n with its 95% interval, and how far the "
           "data pin it: firm, tentative or inconclusive; docs/fitting.md), and its speedup against its baseline at the largest size "
           "both ran.</p>\n" +
           markdown_to_html(overview, 1) + "</section>\n";

  int chart_id = 0;
  const auto metrics = report_metrics(v);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) o += group_section(v, fits, metrics, groups, gi, chart_id);
  o += axes_sections(v, groups, chart_id);
  o += scaling_html(fit_scaling(v, fit_request{}), chart_id);
  o += "<section id=\"tables\">\n<h2>Tables</h2>\n<details><summary>every measured value, per problem and size</summary>\n";
  o += markdown_to_html(render_tables(v, table_style::markdown), 1);
  o += markdown_to_html(render_analysis_tables(v, table_style::markdown), 1);
  o += "</details>\n</section>\n<section id=\"machine\">\n<h2>Machine</h2>\n";
  o += markdown_to_html(render_machine(e.machine, table_style::markdown), 2);
  o += "<h3>Probed ceilings</h3>\n" + markdown_to_html(render_ceilings(e.ceilings, table_style::markdown), 2);
  o += fmt::format("<details><summary>the machine as stored (JSON)</summary>\n<pre><code>{}</code></pre>\n</details>\n",
                   html_escape(e.machine.dump(2)));
  o += fmt::format("</section>\n<script>{}</script>\n</body>\n</html>\n", script);
  return o;
}

namespace {

/// Text of ema's HTML with the entities html_escape writes turned back into characters.
std::string html_unescape(std::string s) {
  static const std::pair<const char*, const char*> entities[] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + std::string_view(to).size()))
      s.replace(at, std::string_view(from).size(), to);
  return s;
}

/// "sort", "Total time" -> "sort-total-time": letters and digits, the rest one dash, at most 80.
std::string file_slug(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) && c < 128)
      out += static_cast<char>(std::tolower(c));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.substr(0, 80);
}

}  // namespace

std::vector<svg_file> charts_as_svg(const std::string& html) {
  std::vector<svg_file> out;
  std::string section;  // the heading of the section the chart is in: its problem
  std::size_t at = 0;
  for (;;) {
    const auto chart = html.find("<svg class=\"chart\"", at);
    for (auto h = html.find("<h2>", at); h != std::string::npos && h < chart; h = html.find("<h2>", h + 4)) {
      const auto end = html.find("</h2>", h);
      section = html_unescape(html.substr(h + 4, end - h - 4));
    }
    if (chart == std::string::npos) break;
    const auto end = html.find("</svg>", chart);
    auto svg = html.substr(chart, end + 6 - chart);
    at = end + 6;
    // Its size from its viewBox, its style inside it, so that it draws the same on its own.
    const auto box = svg.find("viewBox=\"0 0 ");
    const auto box_end = svg.find('"', box + 13);
    const auto dims = svg.substr(box + 13, box_end - box - 13);
    const auto space = dims.find(' ');
    svg.insert(box, fmt::format("width=\"{}\" height=\"{}\" ", dims.substr(0, space), dims.substr(space + 1)));
    const auto open_end = svg.find('>');
    svg.insert(open_end + 1,
               fmt::format("\n<style>svg {{ font-family: system-ui, -apple-system, \"Segoe UI\", Roboto, sans-serif; background: #fff; }}{}</style>",
                           chart_style));
    std::string title;
    if (const auto label = svg.find("aria-label=\""); label != std::string::npos)
      title = html_unescape(svg.substr(label + 12, svg.find('"', label + 12) - label - 12));
    const auto slug = file_slug(section + " " + title);
    out.push_back(
        {fmt::format("{:02}-{}.svg", out.size() + 1, slug.empty() ? "chart" : slug), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg + "\n"});
  }
  return out;
}

std::string render_markdown(const experiment_view& v, const fits_by_metric& fits) {
  std::string o;
  const auto total = fits.count("total") ? fits.at("total") : std::vector<variant_fit>{};
  if (const auto overview = render_overview(v, total, table_style::markdown); !overview.empty()) o += "\n### Overview\n\n" + overview;
  for (const auto& g : groups_of(v)) {
    const auto summary = render_summary(v, g.problem, g.params_json, total, table_style::markdown);
    if (summary.empty()) continue;
    const auto ptext = params_text(g.params_json, ",", g.problem);
    o += fmt::format("\n### Summary: {}{}\n\n{}", stored_text(g.problem, table_style::markdown),
                     ptext.empty() ? "" : " (" + stored_text(ptext, table_style::markdown) + ")", summary);
  }
  o += render_tables(v, table_style::markdown);
  for (const auto& g : groups_of(v)) {
    const auto roofs = render_roofline(roofline_of(v, g.problem, g.params_json), table_style::markdown);
    if (roofs.empty()) continue;
    const auto ptext = params_text(g.params_json, ",", g.problem);
    o += fmt::format("\n### Roofline: {}{}\n\n{}", stored_text(g.problem, table_style::markdown),
                     ptext.empty() ? "" : " (" + stored_text(ptext, table_style::markdown) + ")", roofs);
  }
  {
    std::set<std::string> seen;
    for (const auto& g : groups_of(v))
      if (seen.insert(g.problem).second)
        for (const auto& [key, values] : swept_parameters(v, g.problem)) try {
            o += render_best(v, key, table_style::markdown);
          } catch (const usage_error&) {
          }
  }
  o += render_analysis_tables(v, table_style::markdown);
  o += render_scaling(fit_scaling(v, fit_request{}), table_style::markdown);
  for (const auto& m : report_metrics(v)) {
    auto it = fits.find(m);
    if (it == fits.end() || it->second.empty()) continue;
    o += fmt::format("\n### Equations of {}\n", m);
    o += render_fits(it->second, table_style::markdown);
  }
  o += "\n### Probed ceilings\n\n" + render_ceilings(v.experiment.ceilings, table_style::markdown);
  return o;
}

}  // namespace ema
