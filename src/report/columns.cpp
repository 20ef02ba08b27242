#include "report/columns.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/format.hpp"
#include "core/launch.hpp"
#include "core/registry.hpp"
#include "measure/probe.hpp"
#include "measure/stats.hpp"

namespace ema {
namespace {

tagged_value value_of(std::string column, ema::hint h, double x) {
  tagged_value v;
  v.column = std::move(column);
  v.hint = h;
  v.x = x;
  return v;
}

tagged_value text_of(std::string column, ema::hint h, std::string text) {
  tagged_value v;
  v.column = std::move(column);
  v.hint = h;
  v.text = std::move(text);
  return v;
}

/// The probed ceiling a variant's bytes per second are compared with: for a GPU variant `gpu` (a
/// declared bandwidth's, else the read bandwidth), for a CPU one its back end's.
double ceiling_value(const nlohmann::json& ceilings, const std::string& backend, const char* gpu) {
  const char* name = backend == to_string(backend::cuda) ? gpu : ceiling_for_backend(backend);
  if (!*name || !ceilings.contains(name) || !ceilings[name].contains("value")) return std::nan("");
  return ceilings[name]["value"].get<double>();
}

/// The ceiling at the row's processor count, where it ran at one (issue 32): a memory-bound code
/// on k threads can draw at most k threads' bandwidth and at most the machine's, min(k ×
/// host_read_bw_one, host_read_bw_all); on k SMs, k/m of what a green context of m SMs reads (the
/// probe's device_read_bw_partition), at most the device's; on k GPUs, k devices' read
/// bandwidth, at most all of them. Elsewhere, and where the probe lacks what it needs, the whole
/// back end's.
double ceiling_at_count(const nlohmann::json& ceilings, const point_record& rec, const char* gpu) {
  const double whole = ceiling_value(ceilings, rec.backend, gpu);
  const auto params = nlohmann::json::parse(rec.params_json, nullptr, false);
  auto count = [&](std::string_view field) {
    const auto key = fmt::format("{}{}", launch_prefix, field);
    if (!params.is_object() || !params.contains(key)) return std::nan("");
    try {
      const auto& v = params[key];
      return v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>();
    } catch (const std::exception&) {
      return std::nan("");
    }
  };
  auto val = [&](const char* name) {
    return ceilings.contains(name) && ceilings[name].contains("value") ? ceilings[name]["value"].get<double>() : std::nan("");
  };
  double at = std::nan("");
  if (rec.backend == to_string(backend::omp))
    at = std::min(count(openmp_threads_field.name) * val("host_read_bw_one"), val("host_read_bw_all"));
  else if (rec.backend == to_string(backend::multi_gpu))
    at = std::min(count(gpus_field.name) * val("device_read_bw"), val("device_read_bw_all"));
  else if (rec.backend == to_string(backend::cuda) && std::string_view(gpu) == "device_read_bw" && ceilings.contains("device_read_bw_partition"))
    at = std::min(count(sm_field.name) / ceilings["device_read_bw_partition"].value("sms", std::nan("")) * val("device_read_bw_partition"), whole);
  return std::isfinite(at) && at > 0 ? at : whole;
}

}  // namespace

double pooled_median(const std::vector<const point_view*>& points, const std::string& metric) {
  std::vector<double> m;
  for (auto* p : points)
    if (p->record.status == point_status::ok && std::isfinite(p->median(metric))) m.push_back(p->median(metric));
  return m.empty() ? std::nan("") : median(m);
}

double row_context::pooled(const std::string& metric) const { return pooled_median(points, metric); }

void identity_values(const row_context& r, value_row& out) {
  out.push_back(value_of("n", hint::size, static_cast<double>(r.record().n)));
  out.push_back(text_of("variant", hint::label, r.points.size() > 1 ? fmt::format("{} ×{}", r.label, r.points.size()) : r.label));
}

void total_value(const row_context& r, table_notes& notes, value_row& out) {
  const double total = r.total;
  std::size_t outliers = 0, samples = 0;
  double worst_rse = 0;
  for (auto* p : r.points)
    if (auto it = p->metrics.find("total"); p->record.status == point_status::ok && it != p->metrics.end()) {
      outliers += count_outliers(it->second.values);
      samples += it->second.values.size();
      if (const double e = median_rse(it->second.values); std::isfinite(e)) worst_rse = std::max(worst_rse, e);
    }
  auto v = value_of("total", hint::duration, total);
  v.noisy = std::isfinite(total) && (static_cast<double>(outliers) > 0.02 * static_cast<double>(samples) || worst_rse > 0.05);
  if (v.noisy)
    notes.noisy_rows.push_back(fmt::format(
        "{} n={}: {}{}", stored_text(r.label, r.style), r.record().n,
        outliers ? fmt::format("{} of {} samples are outliers", outliers, samples) : std::string(),
        worst_rse > 0.05 ? fmt::format("{}the median's standard error is {}", outliers ? "; " : "", format_percent(worst_rse)) : std::string()));
  out.push_back(std::move(v));
}

void kernel_value(const row_context& r, value_row& out) {
  out.push_back(value_of("kernel", hint::duration, r.ok() ? r.pooled("kernel") : std::nan("")));
}

void external_values(const row_context& r, const std::set<std::string>& phases, value_row& out) {
  out.push_back(value_of("user", hint::duration, r.pooled("user")));
  out.push_back(value_of("sys", hint::duration, r.pooled("sys")));
  out.push_back(value_of("peak RSS", hint::bytes, r.pooled("host_peak_rss")));
  for (const auto& ph : phases) out.push_back(value_of(ph, hint::duration, r.pooled(ph)));
}

const summary_desc* declared_bandwidth(const problem_desc* desc) {
  if (desc)
    for (const auto& s : desc->summaries)
      if (s.kind == summary_kind::bandwidth) return &s;
  return nullptr;
}

void rate_values(const row_context& r, value_row& out) {
  const rate_desc rate = r.desc ? r.desc->rate : rate_desc{};
  const summary_desc* bandwidth = declared_bandwidth(r.desc);
  double per_s = std::nan(""), bytes_per_s = std::nan("");
  if (r.ok() && r.declared && r.desc) {
    const double kernel = r.pooled("kernel");
    const double t = std::isfinite(kernel) ? kernel : r.total;
    const auto w = r.desc->work(r.record().n, *r.declared);
    per_s = (rate.of_bytes ? w.bytes : w.ops) / t;
    bytes_per_s = w.bytes / t;
    if (rate.work_field) {  // operations the input decides, from each instance's result
      double ops = 0;
      int counted = 0;
      for (auto* p : r.points)
        if (p->result.is_object() && p->result.contains(rate.work_field) && p->result[rate.work_field].is_number())
          ops += p->result[rate.work_field].get<double>(), ++counted;
      per_s = counted ? ops / counted / t : std::nan("");
    }
  }
  out.push_back(value_of(rate.name, hint::rate, per_s / rate.scale));
  // A declared bandwidth beside a rate of operations; either is compared with the probed ceiling.
  out.push_back(value_of(bandwidth ? bandwidth->name : "eff. GB/s", hint::rate, bandwidth ? bytes_per_s / 1e9 : std::nan("")));
  const char* gpu_ceiling = bandwidth ? bandwidth->gpu_ceiling : rate.of_bytes ? "device_read_bw" : nullptr;
  out.push_back(value_of("% ceil", hint::percent,
                         gpu_ceiling && r.ceilings ? bytes_per_s / ceiling_at_count(*r.ceilings, r.record(), gpu_ceiling) : std::nan("")));
}

void speedup_values(const row_context& r, table_notes& notes, value_row& out) {
  const double total = r.total;
  auto speedup = [&](backend ref) {
    if (!r.totals || !r.identities) return std::nan("");
    const auto& at_n = *r.totals;
    const auto& rec = r.record();
    const auto base = speedup_baseline_among(*r.identities, rec.problem, rec.variant, ref,
                                             [&](std::string_view name) { return at_n.count(std::string(name)) > 0; });
    auto it = at_n.find(base);
    const double x = std::isfinite(total) && it != at_n.end() && std::isfinite(it->second) ? it->second / total : std::nan("");
    if (std::isfinite(x) && base != rec.variant)
      if (auto caveat = speedup_caveat(*r.identities, rec.problem, rec.variant, base); !caveat.empty())
        notes.caveats[fmt::format("vs {} of {}", to_string(ref), stored_text(r.label, r.style))] = std::move(caveat);
    return x;
  };
  out.push_back(value_of("vs seq", hint::speedup, speedup(backend::seq)));
  out.push_back(value_of("vs omp", hint::speedup, speedup(backend::omp)));
}

void energy_values(const row_context& r, table_notes& notes, value_row& out) {
  const auto& rec = r.record();
  const std::string metric = uses_gpu(backend_from_string(rec.backend).value_or(backend::seq)) ? "energy_gpu" : "energy_cpu";
  const double energy = r.pooled(metric), total = r.total;
  const bool ok = std::isfinite(total);
  if (!std::isfinite(energy)) {
    std::string why;
    for (auto* p : r.points)
      if (p->unavailable.is_object() && p->unavailable.contains(metric)) why = p->unavailable[metric].get<std::string>();
    for (const char* column : {"energy/op", "avg W", "EDP J·s"}) {
      out.push_back(value_of(column, column[0] == 'e' ? hint::energy : hint::number, std::nan("")));
      out.back().unavailable = !why.empty();
    }
    if (!why.empty()) notes.unavailable[metric].insert(why);
    return;
  }
  // The study's other two energy figures: the mean power of the meter over the energy window (its
  // energy over its span: the runs back to back, the last checked after), and the energy-delay
  // product (energy per run times the run's total time: lower is better).
  std::vector<double> watts;
  for (auto* p : r.points) {
    const auto& n = p->notes;
    const double per_op = p->median(metric);
    if (n.is_object() && n.contains("energy_window_s") && n.contains("energy_window_reps") && n["energy_window_s"].is_number() &&
        n["energy_window_reps"].is_number() && n["energy_window_s"].get<double>() > 0 && std::isfinite(per_op))
      watts.push_back(per_op * n["energy_window_reps"].get<double>() / n["energy_window_s"].get<double>());
  }
  out.push_back(value_of("energy/op", hint::energy, energy));
  out.push_back(value_of("avg W", hint::number, ok && !watts.empty() ? median(watts) : std::nan("")));
  out.push_back(value_of("EDP J·s", hint::number, ok ? energy * total : std::nan("")));
}

void summary_values(const row_context& r, value_row& out) {
  if (!r.desc) return;
  for (const auto& summary : r.desc->summaries) {
    if (summary.kind != summary_kind::note) continue;
    const char* note = summary.name;
    std::string value;
    for (auto* p : r.points)
      if (p->record.status == point_status::ok && p->notes.is_object() && p->notes.contains(note)) {
        const auto& v = p->notes[note];
        value = v.is_string() ? v.get<std::string>() : v.dump();
        break;
      }
    out.push_back(text_of(note, hint::note, std::move(value)));
  }
}

void status_value(const row_context& r, table_notes& notes, value_row& out) {
  std::string status;
  int bad = 0;
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const auto& pr = r.points[i]->record;
    if (pr.status != point_status::ok) ++bad;
    auto footnote = [&](const std::string& what, const std::string& why) {
      notes.footnotes.push_back(fmt::format("[{}] {} n={}{}: {}", notes.footnotes.size() + 1, stored_text(r.point_labels[i], r.style), pr.n,
                                            r.points.size() > 1 ? fmt::format(" input {}", pr.instance) : "", stored_text(why, r.style)));
      // A caution on a point that ran ok reads "ok, busy [2]".
      const bool caution = what == "busy" || what == "waited";
      status += fmt::format("{}{} [{}]", status.empty() ? (caution ? "ok, " : "") : ", ", what, notes.footnotes.size());
    };
    if (!pr.reason.empty()) footnote(std::string(to_string(pr.status)), pr.reason);
    if (pr.status != point_status::ok) continue;
    // What makes a measured time mislead, beside it (issue 31, item 4): a busy machine, and a
    // program whose wall time is well over its CPU time (it waited, or was preempted).
    if (auto busy = disturbed(*r.points[i])) footnote("busy", "the machine was busy while it ran: " + *busy);
    const double wall = r.points[i]->median("total"), cpu = r.points[i]->median("user") + r.points[i]->median("sys");
    if (wall >= 0.01 && std::isfinite(cpu) && wall > 1.5 * cpu)
      footnote("waited", fmt::format("its wall time is {:.1f}× its CPU time: the program waited (input, output, a GPU, a sleep) or was "
                                     "preempted by other processes; for a single-threaded program the wall time is then not its cost",
                                     wall / cpu));
  }
  if (r.off_neighbours) {
    notes.footnotes.push_back(
        fmt::format("[{}] {} n={}: its total time lies {:+.0f}% off the line through its neighbouring sizes: a "
                    "disturbance its samples all shared, not the cost's growth? (`ema run --rerun-noisy` measures it "
                    "again)",
                    notes.footnotes.size() + 1, stored_text(r.label, r.style), r.record().n, 100 * *r.off_neighbours));
    status += fmt::format("{}off [{}]", status.empty() ? "ok, " : ", ", notes.footnotes.size());
  }
  if (status.empty())
    status = "ok";
  else if (bad && bad < static_cast<int>(r.points.size()))
    status = fmt::format("{} of {} ok; {}", r.points.size() - bad, r.points.size(), status);
  out.push_back(text_of("status", hint::status, std::move(status)));
}

}  // namespace ema
