#include "report/table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <optional>
#include <set>

#include "analysis/class_set.hpp"
#include "core/backend.hpp"
#include "core/duration.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/text.hpp"
#include "measure/probe.hpp"
#include "measure/stats.hpp"
#include "core/format.hpp"
#include "core/metrics.hpp"
#include "report/columns.hpp"
#include "report/grid.hpp"
#include "report/values.hpp"

namespace ema {
namespace {

std::string machine_line(const experiment_record& e) {
  const auto& m = e.machine;
  const auto host = m.value("host", nlohmann::json::object());
  std::string s =
      fmt::format("{} ({} cores, {})", host.value("cpu_model", "?"), host.value("logical_cores", 0), format_bytes(host.value("memory_bytes", 0.0)));
  const auto gpus = m.value("gpus", nlohmann::json::array());
  if (!gpus.empty()) {
    std::map<std::string, int> names;
    for (const auto& g : gpus) names[g.value("name", "?")]++;
    for (const auto& [name, count] : names) s += fmt::format("; {}x {}", count, name);
    if (m.contains("cuda")) {
      const auto cuda = m.value("cuda", nlohmann::json::object());
      s += fmt::format(", driver {}, CUDA {}", cuda.value("driver", "?"), cuda.value("runtime", "?"));
    }
  } else {
    s += "; no GPU";
  }
  return s;
}

}  // namespace

namespace {

/// What one table's legend needs of it.
struct table_shape {
  bool external = false;
  rate_desc rate;
  std::set<std::string> dropped;  ///< the columns left out, with nothing to show
};

/// The grid of the rows' values, each formatted by its hint; columns with nothing to show here (no
/// GPU variant's kernel, no baseline, no meter, a rate that is not a bandwidth) are left out and
/// named in `dropped`; the notes below the table say why a metric is unavailable.
std::set<std::string> dropped_columns(const std::vector<value_row>& values) {
  std::set<std::string> dropped;
  for (std::size_t c = 0; c < values.front().size(); ++c) {
    const auto& name = values.front()[c].column;
    const bool always = name == "n" || name == "variant" || name == "total" || name == "status";
    if (!always && std::all_of(values.begin(), values.end(), [&](const value_row& row) { return shows_nothing(row[c]); })) dropped.insert(name);
  }
  return dropped;
}

grid grid_of(const std::vector<value_row>& values, const std::set<std::string>& dropped) {
  grid g;
  for (const auto& v : values.front())
    if (!dropped.count(v.column)) g.columns.push_back({v.column, right_aligned(v.hint)});
  for (const auto& row : values) {
    std::vector<std::string> cells;
    for (const auto& v : row)
      if (!dropped.count(v.column)) cells.push_back(format_value_by_hint(v));
    g.rows.push_back(std::move(cells));
  }
  return g;
}

/// The rows of a table: its points grouped by (n, variant, tuning values), the points of several
/// input instances together, in the points' order.
std::vector<std::vector<const point_view*>> rows_of(const std::vector<const point_view*>& pts) {
  std::vector<std::vector<const point_view*>> rows;
  for (auto* p : pts) {
    auto same = std::find_if(rows.begin(), rows.end(), [&](const auto& row) {
      const auto* q = row.front();
      return q->record.n == p->record.n && q->record.variant == p->record.variant && q->parameters().split.tuning == p->parameters().split.tuning;
    });
    if (same != rows.end())
      same->push_back(p);
    else
      rows.push_back({p});
  }
  return rows;
}

/// One table's rows: a row per (n, variant, tuning values), its values family by family in column
/// order (report/columns.hpp); `shape.dropped` names the columns with nothing to show.
std::vector<value_row> table_of(const experiment_view& v, const std::string& problem, const std::vector<const point_view*>& pts, table_style style,
                                table_notes& notes, table_shape& shape) {
  const auto& e = v.experiment;
  const problem_desc* desc = lookup_problem(problem);
  const auto identities = variant_identities(v, problem);
  // A user's program (`ema exec`) has no kernel, work model or energy: its CPU times, memory and
  // the phases it reported instead.
  const bool external = pts.front()->record.backend == "external";
  std::set<std::string> phases;
  if (external)
    for (auto* p : pts)
      for (const auto& [name, m] : p->metrics)
        if (find_metric(name).source == metric_source::phase) phases.insert(name);
  shape.external = external;
  shape.rate = desc ? desc->rate : rate_desc{};
  // One row per (n, variant, tuning values): the points of several input instances are pooled, each
  // metric the median of the instances' medians; its label names the tuning values.
  const auto rows = rows_of(pts);
  auto label = [&](const point_view* p) {
    const auto& tuning = p->parameters().split.tuning;
    return tuning.empty() ? p->record.variant : p->record.variant + " " + tuning;
  };
  auto context = [&](const std::vector<const point_view*>& points) {
    row_context r;
    r.points = points;
    r.label = label(points.front());
    for (auto* p : points) r.point_labels.push_back(label(p));
    r.style = style;
    r.desc = desc;
    r.declared = points.front()->parameters().declared;  // nullopt for a row changed by hand: no work-model columns
    r.ceilings = &e.ceilings;
    r.identities = &identities;
    r.with_total();
    return r;
  };
  // Each row's total, pooled once: for the baselines and for the neighbours below.
  std::map<std::uint64_t, std::map<std::string, double>> totals;
  // The rows whose total lies off both neighbours along their variant's sizes (the fit's rule,
  // analysis/class_set.hpp): a disturbance every sample shared, said beside it (issue 31, item 4).
  std::map<std::string, fit::series> by_label;
  for (const auto& row : rows) {
    const double t = context(row).total;
    // A baseline's time: its row at the default tuning (a baseline reads none), else its first.
    auto& at = totals[row.front()->record.n];
    const auto& name = row.front()->record.variant;
    if (!at.count(name) || row.front()->parameters().split.tuning.empty()) at[name] = t;
    if (std::isfinite(t) && t > 0) by_label[label(row.front())].add(static_cast<double>(row.front()->record.n), t);
  }
  std::map<std::pair<std::string, std::uint64_t>, double> off;
  for (const auto& [name, data] : by_label)
    for (const auto& o : fit::off_neighbours(data)) off[{name, static_cast<std::uint64_t>(std::llround(o.n))}] = o.departure;
  // Each row's values, family by family in column order.
  std::vector<value_row> values;
  for (const auto& points : rows) {
    auto r = context(points);
    r.totals = &totals[r.record().n];
    if (auto it = off.find({r.label, r.record().n}); it != off.end()) r.off_neighbours = it->second;
    value_row row;
    identity_values(r, row);
    total_value(r, notes, row);
    if (external) {
      external_values(r, phases, row);
    } else {
      kernel_value(r, row);
      rate_values(r, row);
      speedup_values(r, notes, row);
      energy_values(r, notes, row);
      summary_values(r, row);
    }
    status_value(r, notes, row);
    values.push_back(std::move(row));
  }
  shape.dropped = dropped_columns(values);
  return values;
}

/// The notes under a table: what its columns mean, the noisy points, the unavailable metrics and
/// every footnote.
std::string table_legend(const problem_desc* desc, const table_shape& shape, const table_notes& notes, table_style style) {
  const bool md = style == table_style::markdown;
  const bool external = shape.external;
  const auto& rate = shape.rate;
  const summary_desc* bandwidth = declared_bandwidth(desc);
  const auto& dropped = shape.dropped;
  const auto& noisy_rows = notes.noisy_rows;
  std::string out;
  const char* bullet = md ? "- " : "  ";
  if (external)
    out += fmt::format(
        "{}medians (×k: k input instances pooled, the median of their medians); total: wall time of one "
        "run of the program; user, sys: its CPU time; peak RSS: its resident memory; then the phases it "
        "reported\n",
        bullet);
  else
    out += fmt::format(
        "{}medians (×k: k input instances pooled, the median of their medians); {}: {} over the kernel "
        "time (GPU) or the total time (CPU){}{}\n",
        bullet, rate.name, rate.meaning,
        bandwidth ? fmt::format("; {}: {}; % ceil: of the probed {} for a GPU, of the read bandwidth for the CPU", bandwidth->name, bandwidth->what,
                                std::string_view(bandwidth->gpu_ceiling) == "device_copy_bw" ? "copy bandwidth" : "read bandwidth")
        : rate.of_bytes ? "; % ceil: of the probed read bandwidth for the back end"
                        : "",
        dropped.count("vs seq") && dropped.count("vs omp")
            ? ""
            : "; vs seq, vs omp: speedup in total time against the same algorithm's seq or omp variant, else the "
              "problem's reference algorithm's (`ema list` shows each variant's algorithm)");
  if (!external && !dropped.count("energy/op"))
    out += fmt::format(
        "{}energy/op: the meter's energy over one run (the GPU board for a GPU variant, the CPU package for a "
        "CPU one), from a window of back-to-back runs; avg W: the meter's mean power over that window; "
        "EDP J·s: energy/op times total time (the energy-delay product)\n",
        bullet);
  if (!external && desc) {
    std::vector<std::string> shown;
    for (const auto& s : desc->summaries)
      if (s.kind == summary_kind::note && !dropped.count(s.name)) shown.push_back(fmt::format("{}: {}", s.name, s.what));
    if (!shown.empty()) out += fmt::format("{}{} (recorded by the variants that have them)\n", bullet, fmt::join(shown, "; "));
  }
  if (!noisy_rows.empty())
    out += fmt::format(
        "{}!: a noisy point — over 2% of its samples more than 10 robust standard deviations from the median (hyperfine's "
        "outlier rule: another process or a preempted thread ran), or a median whose relative standard "
        "error is above 5%; the median stands, a mean would not: {}\n",
        bullet, fmt::join(noisy_rows, ", "));
  for (const auto& [metric, reasons] : notes.unavailable)
    for (const auto& why : reasons) out += fmt::format("{}{}: unavailable ({})\n", bullet, stored_text(metric, style), stored_text(why, style));
  for (const auto& [which, caveat] : notes.caveats)
    out += fmt::format("{}{}: not parallel speedup alone: {}\n", bullet, which, stored_text(caveat, style));
  for (const auto& f : notes.footnotes) out += fmt::format("{}{}\n", bullet, f);
  return out;
}

/// A calibrated sweep's tracks: the sizes each reached, why it stopped, and its verdict.
std::string calibration_text(const experiment_view& v, table_style style) {
  const auto& e = v.experiment;
  const bool md = style == table_style::markdown;
  std::string out;
  if (e.plan.contains("calibration")) {
    out += fmt::format("{}calibrated to a budget of {}:\n", md ? "\n- " : "\n", format_duration(e.plan.value("budget", 0.0)));
    for (const auto& t : e.plan["calibration"].value("tracks", nlohmann::json::array())) {
      std::set<std::uint64_t> sizes;
      const std::string problem = t.value("problem", ""), variant(current_variant_name(problem, t.value("variant", "")));
      for (const auto& p : v.points)
        if (p.record.problem == problem && p.record.variant == variant && p.record.status == point_status::ok) sizes.insert(p.record.n);
      const auto stopped = t.value("stopped", ""), settled = t.value("settled", "");
      out += fmt::format(
          "{}{} {}: {} sizes{}; {}{}\n", md ? "  - " : "  ", stored_text(t.value("problem", ""), style), stored_text(variant, style), sizes.size(),
          sizes.empty()
              ? ""
              : fmt::format(" from {} to {}", format_size(static_cast<double>(*sizes.begin())), format_size(static_cast<double>(*sizes.rbegin()))),
          stopped.empty() ? "still growing (interrupted)" : "stopped growing: " + stored_text(stopped, style),
          settled.empty() ? "" : "; then its total time's fit: " + stored_text(settled, style));
    }
  }
  return out;
}

}  // namespace

std::vector<result_table> result_tables(const experiment_view& v, table_style style) {
  // Group points by (problem, parameters but the tuning ones), keeping plan order: a variant
  // that reads k shares its table with those that do not, one row per value of k.
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& p : v.points) {
    std::pair key{p.record.problem, p.parameters().split.rest};
    if (std::find(groups.begin(), groups.end(), key) == groups.end()) groups.push_back(key);
  }
  std::vector<result_table> out;
  for (const auto& [problem, params_json] : groups) {
    std::vector<const point_view*> pts;
    for (const auto& p : v.points)
      if (p.record.problem == problem && p.parameters().split.rest == params_json) pts.push_back(&p);
    std::stable_sort(pts.begin(), pts.end(), [](auto a, auto b) {
      if (a->record.n != b->record.n) return a->record.n < b->record.n;
      int ra = backend_order(a->record.backend), rb = backend_order(b->record.backend);
      if (ra != rb) return ra < rb;
      return a->record.variant < b->record.variant;
    });
    const problem_desc* desc = lookup_problem(problem);
    result_table t;
    t.problem = problem;
    t.params = params_text(params_json, ",", problem);
    t.size_meaning = desc ? desc->size_meaning : "n";
    table_notes notes;
    table_shape shape;
    t.rows = table_of(v, problem, pts, style, notes, shape);
    t.dropped = shape.dropped;
    t.legend = table_legend(desc, shape, notes, style);
    out.push_back(std::move(t));
  }
  return out;
}

std::string render_tables(const experiment_view& v, table_style style) {
  const auto& e = v.experiment;
  std::string out;
  const bool md = style == table_style::markdown;
  out += md ? fmt::format("## Experiment {} ({})\n\n", e.id, e.state) : fmt::format("Experiment {} ({}) — {}\n", e.id, e.state, e.created_at);
  out += fmt::format("{}machine: {}\n", md ? "- " : "", stored_text(machine_line(e), style));
  out += fmt::format("{}ema {} ({}); command: {}\n", md ? "- " : "", stored_text(e.ema_version, style), stored_text(e.git_commit, style),
                     stored_text(e.command_line, style));
  if (const int rounds = e.plan.is_object() ? e.plan.value("rounds", 1) : 1; rounds > 1)
    out += fmt::format("{}rounds: {}, each point measured {} times, a pass over the plan apart; each row is its quickest round (`--rounds`)\n",
                       md ? "- " : "", rounds, rounds);
  if (md) out += "\n";
  for (const auto& t : result_tables(v, style)) {
    const auto ptext = t.params.empty() ? std::string() : fmt::format(" ({})", stored_text(t.params, style));
    out += "\n";
    out += md ? fmt::format("### {}{}\n\n", stored_text(t.problem, style), ptext) : fmt::format("{} — {}{}\n", t.problem, t.size_meaning, ptext);
    if (md && lookup_problem(t.problem)) out += fmt::format("n: {}\n\n", t.size_meaning);
    out += render(grid_of(t.rows, t.dropped), style);
    if (md) out += "\n";
    out += t.legend;
  }
  out += calibration_text(v, style);
  if (!e.plan.is_null() && e.plan.contains("notes"))
    for (const auto& note : e.plan.value("notes", nlohmann::json::array()))
      out += fmt::format("{}note: {}\n", md ? "- " : "", stored_text(note.is_string() ? note.get<std::string>() : note.dump(), style));
  return out;
}

namespace {

/// The value of column `name` in a row, or nullptr.
const tagged_value* value_in(const value_row& row, std::string_view name) {
  for (const auto& v : row)
    if (v.column == name) return &v;
  return nullptr;
}

}  // namespace

nlohmann::json tables_json(const experiment_view& v) {
  nlohmann::json out = {{"schema", "ema.tables/1"}, {"experiment", v.experiment.id}, {"tables", nlohmann::json::array()}};
  for (const auto& t : result_tables(v, table_style::text)) {
    nlohmann::json table = {{"problem", t.problem}, {"params", t.params}, {"n", t.size_meaning}, {"legend", t.legend}};
    table["columns"] = nlohmann::json::array();
    for (const auto& c : t.rows.front())
      if (!t.dropped.count(c.column)) table["columns"].push_back({{"name", c.column}, {"hint", hint_name(c.hint)}});
    table["rows"] = nlohmann::json::array();
    for (const auto& row : t.rows) {
      nlohmann::json cells = nlohmann::json::array();
      for (const auto& c : row) {
        if (t.dropped.count(c.column)) continue;
        nlohmann::json cell = {{"value", value_json(c)}, {"text", format_value_by_hint(c)}};
        if (c.noisy) cell["noisy"] = true;
        if (c.unavailable) cell["unavailable"] = true;
        cells.push_back(std::move(cell));
      }
      table["rows"].push_back(std::move(cells));
    }
    out["tables"].push_back(std::move(table));
  }
  return out;
}

std::string tables_csv(const experiment_view& v) {
  std::string out = "table,problem,params,n,variant,column,hint,value,text\n";
  int k = 0;
  for (const auto& t : result_tables(v, table_style::text)) {
    ++k;
    for (const auto& row : t.rows) {
      const auto* n = value_in(row, "n");
      const auto* variant = value_in(row, "variant");
      for (const auto& c : row) {
        if (t.dropped.count(c.column) || &c == n || &c == variant) continue;
        const auto value = value_json(c);
        out += fmt::format("{},{},{},{},{},{},{},{},{}\n", k, csv_field(t.problem), csv_field(t.params), n ? format_value_by_hint(*n) : "",
                           csv_field(variant ? variant->text : ""), csv_field(c.column), hint_name(c.hint),
                           value.is_null()     ? ""
                           : value.is_string() ? csv_field(value.get<std::string>())
                                               : fmt::format("{:.17g}", value.get<double>()),
                           csv_field(format_value_by_hint(c)));
      }
    }
  }
  return out;
}

}  // namespace ema

namespace ema {

namespace {

/// A field of a stored object as text, or empty where it is absent or not a string.
std::string text_of(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}
/// A number of a stored object, or NaN.
double number_of(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : NAN;
}

}  // namespace

std::string render_machine(const nlohmann::json& machine, table_style style) {
  grid g;
  g.columns = {{"part", false}, {"what it is", false}};
  auto row = [&](std::string what, std::string value) {
    if (!value.empty()) g.rows.push_back({std::move(what), std::move(value)});
  };
  const auto host = machine.is_object() && machine.contains("host") ? machine["host"] : nlohmann::json();
  row("CPU", text_of(host, "cpu_model"));
  {
    const double cores = number_of(host, "logical_cores"), allowed = number_of(host, "allowed_cpus"), threads = number_of(host, "openmp_threads");
    std::string t;
    if (std::isfinite(cores)) t = fmt::format("{:.0f} logical", cores);
    if (std::isfinite(allowed) && allowed != cores) t += fmt::format("{}{:.0f} allowed to ema", t.empty() ? "" : ", ", allowed);
    if (std::isfinite(threads)) t += fmt::format("{}OpenMP threads {:.0f}", t.empty() ? "" : "; ", threads);
    row("cores", t);
  }
  if (const double m = number_of(host, "memory_bytes"); std::isfinite(m)) row("memory", format_bytes(m));
  if (host.is_object() && host.contains("caches") && host["caches"].is_array()) {
    std::vector<std::string> caches;
    for (const auto& c : host["caches"]) {
      const double level = number_of(c, "level"), size = number_of(c, "size_bytes");
      if (!std::isfinite(level) || !std::isfinite(size)) continue;
      const auto type = text_of(c, "type");
      const auto kind = type == "Data" ? "d" : type == "Instruction" ? "i" : "";
      const auto shared = text_of(c, "shared_cpu_list");
      caches.push_back(fmt::format("L{:.0f}{} {}{}", level, kind, format_bytes(size),
                                   shared.find_first_of(",-") != std::string::npos ? fmt::format(" (shared by CPUs {})", shared) : ""));
    }
    row("caches (per core unless shared)", fmt::format("{}", fmt::join(caches, ", ")));
  }
  row("operating system", text_of(host, "kernel"));
  row("host name", text_of(host, "hostname"));
  if (machine.is_object() && machine.contains("gpus") && machine["gpus"].is_array()) {
    for (const auto& gpu : machine["gpus"]) {
      std::vector<std::string> parts;
      if (const auto cc = text_of(gpu, "compute_capability"); !cc.empty()) parts.push_back("compute capability " + cc);
      if (const double sms = number_of(gpu, "sm_count"); std::isfinite(sms)) parts.push_back(fmt::format("{:.0f} SMs", sms));
      if (const double m = number_of(gpu, "memory_bytes"); std::isfinite(m)) parts.push_back(format_bytes(m) + " memory");
      if (const double l2 = number_of(gpu, "l2_bytes"); std::isfinite(l2)) parts.push_back(format_bytes(l2) + " L2");
      if (const double clk = number_of(gpu, "sm_clock_max_mhz"); std::isfinite(clk)) parts.push_back(fmt::format("up to {:.0f} MHz", clk));
      const double index = number_of(gpu, "index");
      row(std::isfinite(index) ? fmt::format("GPU {:.0f}", index) : "GPU",
          fmt::format("{}{}{}", text_of(gpu, "name"), parts.empty() ? "" : ": ", fmt::join(parts, ", ")));
    }
  }
  if (machine.is_object() && machine.contains("cuda")) {
    const auto& cuda = machine["cuda"];
    const auto driver = text_of(cuda, "driver"), runtime = text_of(cuda, "runtime");
    if (!driver.empty() || !runtime.empty())
      row("CUDA", fmt::format("driver {}, runtime {}", driver.empty() ? "?" : driver, runtime.empty() ? "?" : runtime));
  }
  return g.rows.empty() ? std::string() : render(g, style);
}

std::string render_ceilings(const nlohmann::json& ceilings, table_style style) {
  grid g;
  g.columns = {{"ceiling", false}, {"value", true}, {"how", false}};
  for (const auto& [name, c] : ceilings.items()) {
    if (c.contains("unavailable")) {
      g.rows.push_back({name, "unavailable", c["unavailable"].get<std::string>()});
      continue;
    }
    g.rows.push_back({name, format_value(c.value("value", 0.0), c.value("unit", "")), c.value("detail", "")});
  }
  // A probe that contradicts itself: every thread together reading slower than one alone.
  auto value = [&](const char* k) { return ceilings.contains(k) && ceilings[k].is_object() ? ceilings[k].value("value", 0.0) : 0.0; };
  std::string out = render(g, style);
  if (value("host_read_bw_all") > 0 && value("host_read_bw_one") > value("host_read_bw_all"))
    out += fmt::format(
        "{}host_read_bw_all is below host_read_bw_one: all threads read slower than one, so the probe was "
        "disturbed (another process, a busy VM); `ema probe` measures again\n",
        style == table_style::markdown ? "\n- warning: " : "  warning: ");
  return out;
}

}  // namespace ema
