#include "report/table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>

#include "core/backend.hpp"
#include "core/duration.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "measure/probe.hpp"
#include "measure/stats.hpp"
#include "core/format.hpp"
#include "report/grid.hpp"

namespace ema {
namespace {

double ceiling_value(const nlohmann::json& ceilings, const std::string& backend, const rate_desc& rate) {
  const char* name = backend == to_string(backend::cuda) ? rate.gpu_ceiling : ceiling_for_backend(backend);
  if (!*name || !ceilings.contains(name) || !ceilings[name].contains("value")) return std::nan("");
  return ceilings[name]["value"].get<double>();
}

std::string machine_line(const experiment_record& e) {
  const auto& m = e.machine;
  const auto host = m.value("host", nlohmann::json::object());
  std::string s = fmt::format("{} ({} cores, {})", host.value("cpu_model", "?"), host.value("logical_cores", 0),
                              format_bytes(host.value("memory_bytes", 0.0)));
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

std::string render_tables(const experiment_view& v, table_style style) {
  const auto& e = v.experiment;
  std::string out;
  const bool md = style == table_style::markdown;
  out += md ? fmt::format("## Experiment {} ({})\n\n", e.id, e.state)
            : fmt::format("Experiment {} ({}) — {}\n", e.id, e.state, e.created_at);
  out += fmt::format("{}machine: {}\n", md ? "- " : "", stored_text(machine_line(e), style));
  out += fmt::format("{}ema {} ({}); command: {}\n", md ? "- " : "", stored_text(e.ema_version, style),
                     stored_text(e.git_commit, style), stored_text(e.command_line, style));
  if (md) out += "\n";

  // Group points by (problem, parameters but the tuning ones), keeping plan order: a variant
  // that reads k shares its table with those that do not, one row per value of k.
  std::vector<std::pair<std::string, std::string>> groups;
  std::map<const point_view*, tuning_split> split;
  for (const auto& p : v.points) {
    split[&p] = split_tuning(p.record.params_json, p.record.problem);
    std::pair key{p.record.problem, split[&p].rest};
    if (std::find(groups.begin(), groups.end(), key) == groups.end()) groups.push_back(key);
  }
  for (const auto& [problem, params_json] : groups) {
    std::vector<const point_view*> pts;
    for (const auto& p : v.points)
      if (p.record.problem == problem && split[&p].rest == params_json) pts.push_back(&p);
    std::stable_sort(pts.begin(), pts.end(), [](auto a, auto b) {
      if (a->record.n != b->record.n) return a->record.n < b->record.n;
      int ra = backend_order(a->record.backend), rb = backend_order(b->record.backend);
      if (ra != rb) return ra < rb;
      return a->record.variant < b->record.variant;
    });
    const problem_desc* desc = lookup_problem(problem);
    const auto identities = variant_identities(v, problem);
    // The work model needs the parameters as the problem declares them; stored ones that are not
    // (a row changed by hand) leave the bandwidth columns empty.
    auto declared_of = [&](const std::string& stored) -> std::optional<param_set> {
      return desc ? param_set::restore_json(desc->name, desc->params, stored) : std::nullopt;
    };

    const auto shown = params_text(params_json, ",", problem);
    const auto ptext = shown.empty() ? std::string() : fmt::format(" ({})", stored_text(shown, style));
    out += "\n";
    out += md ? fmt::format("### {}{}\n\n", stored_text(problem, style), ptext)
              : fmt::format("{} — {}{}\n", problem, desc ? desc->size_meaning : "n", ptext);
    if (md && desc) out += fmt::format("n: {}\n\n", desc->size_meaning);

    // A user's program (`ema exec`) has no kernel, work model or energy: its CPU times, memory and
    // the phases it reported instead.
    const bool external = pts.front()->record.backend == "external";
    std::set<std::string> phases;
    if (external)
      for (auto* p : pts)
        for (const auto& [name, m] : p->metrics)
          if (name != "total" && name != "user" && name != "sys" && name != "host_peak_rss" && name != "point_wall")
            phases.insert(name);
    const rate_desc rate = desc ? desc->rate : rate_desc{};
    grid g;
    if (external) {
      g.columns = {{"n", true}, {"variant", false}, {"total", true}, {"user", true}, {"sys", true}, {"peak RSS", true}};
      for (const auto& ph : phases) g.columns.push_back({ph, true});
      g.columns.push_back({"status", false});
    } else {
      g.columns = {{"n", true},      {"variant", false}, {"total", true},  {"kernel", true}, {rate.name, true},    {"eff. GB/s", true},
                   {"% ceil", true},  {"vs seq", true},   {"vs omp", true}, {"energy/op", true}, {"avg W", true},
                   {"EDP J·s", true},   {"status", false}};
      if (desc)
        for (const char* note : desc->table_notes) g.columns.insert(g.columns.end() - 1, {note, true});
    }
    std::vector<std::string> footnotes, noisy_rows;
    std::map<std::string, std::set<std::string>> unavailable;  // metric -> reasons
    // One row per (n, variant): the points of several input instances are pooled, each metric the
    // median of the instances' medians.
    // A row per (n, variant, tuning values); its label names the tuning values.
    std::vector<std::vector<const point_view*>> rows;
    for (auto* p : pts) {
      auto same = std::find_if(rows.begin(), rows.end(), [&](const auto& row) {
        const auto* q = row.front();
        return q->record.n == p->record.n && q->record.variant == p->record.variant && split[q].tuning == split[p].tuning;
      });
      if (same != rows.end()) same->push_back(p);
      else rows.push_back({p});
    }
    auto label = [&](const point_view* p) {
      return split[p].tuning.empty() ? p->record.variant : p->record.variant + " " + split[p].tuning;
    };
    auto pooled = [](const std::vector<const point_view*>& row, const std::string& metric) {
      std::vector<double> m;
      for (auto* p : row)
        if (p->record.status == point_status::ok && std::isfinite(p->median(metric))) m.push_back(p->median(metric));
      return m.empty() ? std::nan("") : median(m);
    };
    std::map<std::uint64_t, std::map<std::string, double>> totals;
    // A baseline's time: its row at the default tuning (a baseline reads none), else its first.
    for (const auto& row : rows) {
      auto& at = totals[row.front()->record.n];
      const auto& name = row.front()->record.variant;
      if (!at.count(name) || split[row.front()].tuning.empty()) at[name] = pooled(row, "total");
    }
    for (const auto& points : rows) {
      const auto& r = points.front()->record;
      const double total = pooled(points, "total"), kernel = pooled(points, "kernel");
      const bool ok = std::isfinite(total);
      std::vector<std::string> row;
      row.push_back(fmt::format("{}", r.n));
      row.push_back(points.size() > 1 ? fmt::format("{} ×{}", label(points.front()), points.size()) : label(points.front()));
      // Noise, where it shows: more than 2% of the samples far from the median (hyperfine's outlier
      // rule), or a median whose relative standard error is above 5%.
      std::size_t outliers = 0, samples = 0;
      double worst_rse = 0;
      for (auto* p : points)
        if (auto it = p->metrics.find("total"); p->record.status == point_status::ok && it != p->metrics.end()) {
          outliers += count_outliers(it->second.values);
          samples += it->second.values.size();
          if (const double e = median_rse(it->second.values); std::isfinite(e)) worst_rse = std::max(worst_rse, e);
        }
      const bool noisy = ok && (static_cast<double>(outliers) > 0.02 * static_cast<double>(samples) || worst_rse > 0.05);
      if (noisy) {
        noisy_rows.push_back(fmt::format("{} n={}: {}{}", stored_text(label(points.front()), style), r.n,
                                         outliers ? fmt::format("{} of {} samples are outliers", outliers, samples) : std::string(),
                                         worst_rse > 0.05 ? fmt::format("{}the median's standard error is {}", outliers ? "; " : "",
                                                                        format_percent(worst_rse))
                                                          : std::string()));
      }
      row.push_back(ok ? format_time(total) + (noisy ? " !" : "") : "-");
      if (external) {
        auto cell = [&](const std::string& metric, auto fmt_fn) {
          const double x = pooled(points, metric);
          row.push_back(std::isfinite(x) ? fmt_fn(x) : "-");
        };
        cell("user", format_time);
        cell("sys", format_time);
        cell("host_peak_rss", format_bytes);
        for (const auto& ph : phases) cell(ph, format_time);
      }
      if (!external) {
        row.push_back(ok && std::isfinite(kernel) ? format_time(kernel) : "-");
        double per_s = std::nan(""), bytes_per_s = std::nan("");
        if (const auto declared = ok ? declared_of(r.params_json) : std::nullopt) {
          const double t = std::isfinite(kernel) ? kernel : total;
          const auto w = desc->work(r.n, *declared);
          per_s = (rate.of_bytes ? w.bytes : w.ops) / t;
          bytes_per_s = w.bytes / t;
          if (rate.work_field) {  // operations the input decides, from each instance's result
            double ops = 0;
            int counted = 0;
            for (auto* p : points)
              if (p->result.is_object() && p->result.contains(rate.work_field) && p->result[rate.work_field].is_number())
                ops += p->result[rate.work_field].get<double>(), ++counted;
            per_s = counted ? ops / counted / t : std::nan("");
          }
        }
        row.push_back(std::isfinite(per_s) ? fmt::format("{:.3g}", per_s / rate.scale) : "-");
        const bool bandwidth = rate.of_bytes || rate.effective_bandwidth;
        row.push_back(rate.effective_bandwidth && std::isfinite(bytes_per_s) ? fmt::format("{:.3g}", bytes_per_s / 1e9) : "-");
        row.push_back(bandwidth ? format_percent(bytes_per_s / ceiling_value(e.ceilings, r.backend, rate)) : "-");
        auto speedup = [&](backend ref) {
          const auto& at_n = totals[r.n];
          auto it = at_n.find(speedup_baseline_among(identities, r.problem, r.variant, ref,
                                                     [&](std::string_view name) { return at_n.count(std::string(name)) > 0; }));
          return ok && it != totals[r.n].end() && std::isfinite(it->second) ? format_ratio(it->second / total) : std::string("-");
        };
        row.push_back(speedup(backend::seq));
        row.push_back(speedup(backend::omp));
        const std::string energy_metric = uses_gpu(backend_from_string(r.backend).value_or(backend::seq)) ? "energy_gpu" : "energy_cpu";
        const double energy = pooled(points, energy_metric);
        if (std::isfinite(energy)) {
          row.push_back(format_energy(energy));
          // The study's other two energy figures: the mean power of the meter over the energy
          // window (its energy over its span: the runs back to back, the last checked after), and the
          // energy-delay product (energy per run times the run's total time: lower is better).
          std::vector<double> watts;
          for (auto* p : points) {
            const auto& n = p->notes;
            const double per_op = p->median(energy_metric);
            if (n.is_object() && n.contains("energy_window_s") && n.contains("energy_window_reps") && n["energy_window_s"].is_number() &&
                n["energy_window_reps"].is_number() && n["energy_window_s"].get<double>() > 0 && std::isfinite(per_op))
              watts.push_back(per_op * n["energy_window_reps"].get<double>() / n["energy_window_s"].get<double>());
          }
          row.push_back(ok && !watts.empty() ? fmt::format("{:.3g}", median(watts)) : "-");
          row.push_back(ok ? fmt::format("{:.3g}", energy * total) : "-");
        } else {
          std::string why;
          for (auto* p : points)
            if (p->unavailable.is_object() && p->unavailable.contains(energy_metric))
              why = p->unavailable[energy_metric].get<std::string>();
          for (int i = 0; i < 3; ++i) row.push_back(why.empty() ? "-" : "unavailable");
          if (!why.empty()) unavailable[energy_metric].insert(why);
        }
      }
      if (!external && desc)
        for (const char* note : desc->table_notes) {
          std::string value = "-";
          for (auto* p : points)
            if (p->record.status == point_status::ok && p->notes.is_object() && p->notes.contains(note)) {
              const auto& v = p->notes[note];
              value = v.is_string() ? v.get<std::string>() : v.dump();
              break;
            }
          row.push_back(value);
        }
      std::string status;
      int bad = 0;
      for (auto* p : points) {
        const auto& pr = p->record;
        if (pr.status != point_status::ok) ++bad;
        if (pr.reason.empty()) continue;
        footnotes.push_back(fmt::format("[{}] {} n={}{}: {}", footnotes.size() + 1, stored_text(label(p), style), pr.n,
                                        points.size() > 1 ? fmt::format(" input {}", pr.instance) : "",
                                        stored_text(pr.reason, style)));
        status += fmt::format("{}{} [{}]", status.empty() ? "" : ", ", to_string(pr.status), footnotes.size());
      }
      if (status.empty()) status = "ok";
      else if (bad && bad < static_cast<int>(points.size())) status = fmt::format("{} of {} ok; {}", points.size() - bad, points.size(), status);
      row.push_back(status);
      g.rows.push_back(std::move(row));
    }
    // Columns with nothing to show here (no GPU variant's kernel, no baseline, no meter, a rate
    // that is not a bandwidth) are left out; the notes below say why a metric is unavailable.
    std::set<std::string> dropped;
    for (std::size_t c = g.columns.size(); c-- > 0;) {
      const auto& name = g.columns[c].title;
      if (name == "n" || name == "variant" || name == "total" || name == "status") continue;
      const bool empty = std::all_of(g.rows.begin(), g.rows.end(), [&](const auto& row) {
        return c >= row.size() || row[c] == "-" || row[c] == "unavailable";
      });
      if (!empty || g.rows.empty()) continue;
      dropped.insert(name);
      g.columns.erase(g.columns.begin() + static_cast<std::ptrdiff_t>(c));
      for (auto& row : g.rows)
        if (c < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(c));
    }
    out += render(g, style);
    if (md) out += "\n";
    const char* bullet = md ? "- " : "  ";
    if (external)
      out += fmt::format("{}medians (×k: k input instances pooled, the median of their medians); total: wall time of one "
                         "run of the program; user, sys: its CPU time; peak RSS: its resident memory; then the phases it "
                         "reported\n",
                         bullet);
    else
      out += fmt::format("{}medians (×k: k input instances pooled, the median of their medians); {}: {} over the kernel "
                         "time (GPU) or the total time (CPU){}{}\n",
                         bullet, rate.name, rate.meaning,
                         rate.effective_bandwidth
                             ? fmt::format("; eff. GB/s: the work model's bytes over the same time (an effective bandwidth); % ceil: "
                                           "of the probed {} for a GPU, of the read bandwidth for the CPU",
                                           std::string_view(rate.gpu_ceiling) == "device_copy_bw" ? "copy bandwidth" : "read bandwidth")
                         : rate.of_bytes ? "; % ceil: of the probed read bandwidth for the back end"
                                         : "",
                         dropped.count("vs seq") && dropped.count("vs omp")
                             ? ""
                             : "; vs seq, vs omp: speedup in total time against the same algorithm's seq or omp variant "
                               "(exact-cuda against exact-seq), else the problem's reference algorithm's (`ema list` shows "
                               "each variant's algorithm)");
    if (!external && !dropped.count("energy/op"))
      out += fmt::format("{}energy/op: the meter's energy over one run (the GPU board for a GPU variant, the CPU package for a "
                         "CPU one), from a window of back-to-back runs; avg W: the meter's mean power over that window; "
                         "EDP J·s: energy/op times total time (the energy-delay product)\n",
                         bullet);
    if (!external && desc) {
      std::vector<std::string> shown;
      for (const char* note : desc->table_notes)
        if (!dropped.count(note)) shown.push_back(note);
      if (!shown.empty())
        out += fmt::format("{}{}: recorded by the variants that have them (docs/problems/{}.md says what they count)\n", bullet,
                           fmt::join(shown, ", "), stored_text(problem, style));
    }
    if (!noisy_rows.empty())
      out += fmt::format("{}!: a noisy point — over 2% of its samples more than 10 robust standard deviations from the median (hyperfine's "
                         "outlier rule: another process or a preempted thread ran), or a median whose relative standard "
                         "error is above 5%; the median stands, a mean would not: {}\n",
                         bullet, fmt::join(noisy_rows, ", "));
    for (const auto& [metric, reasons] : unavailable)
      for (const auto& why : reasons) out += fmt::format("{}{}: unavailable ({})\n", bullet, stored_text(metric, style), stored_text(why, style));
    for (const auto& f : footnotes) out += fmt::format("{}{}\n", bullet, f);
  }
  if (e.plan.contains("calibration")) {
    out += fmt::format("{}calibrated to a budget of {}:\n", md ? "\n- " : "\n", format_duration(e.plan.value("budget", 0.0)));
    for (const auto& t : e.plan["calibration"].value("tracks", nlohmann::json::array())) {
      std::set<std::uint64_t> sizes;
      for (const auto& p : v.points)
        if (p.record.problem == t.value("problem", "") && p.record.variant == t.value("variant", "") &&
            p.record.status == point_status::ok)
          sizes.insert(p.record.n);
      const auto stopped = t.value("stopped", ""), settled = t.value("settled", "");
      out += fmt::format("{}{} {}: {} sizes{}; {}{}\n", md ? "  - " : "  ", stored_text(t.value("problem", ""), style),
                         stored_text(t.value("variant", ""), style), sizes.size(),
                         sizes.empty() ? "" : fmt::format(" from {} to {}", format_size(static_cast<double>(*sizes.begin())),
                                                                           format_size(static_cast<double>(*sizes.rbegin()))),
                         stopped.empty() ? "still growing (interrupted)" : "stopped growing: " + stored_text(stopped, style),
                         settled.empty() ? "" : "; then its total time's fit: " + stored_text(settled, style));
    }
  }
  if (!e.plan.is_null() && e.plan.contains("notes"))
    for (const auto& note : e.plan.value("notes", nlohmann::json::array()))
      out += fmt::format("{}note: {}\n", md ? "- " : "", stored_text(note.is_string() ? note.get<std::string>() : note.dump(), style));
  return out;
}

}  // namespace ema

namespace ema {

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
  auto value = [&](const char* k) {
    return ceilings.contains(k) && ceilings[k].is_object() ? ceilings[k].value("value", 0.0) : 0.0;
  };
  std::string out = render(g, style);
  if (value("host_read_bw_all") > 0 && value("host_read_bw_one") > value("host_read_bw_all"))
    out += fmt::format("{}host_read_bw_all is below host_read_bw_one: all threads read slower than one, so the probe was "
                       "disturbed (another process, a busy VM); `ema probe` measures again\n",
                       style == table_style::markdown ? "\n- warning: " : "  warning: ");
  return out;
}

}  // namespace ema
