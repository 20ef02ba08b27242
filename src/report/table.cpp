#include "report/table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

#include "core/backend.hpp"
#include "core/registry.hpp"
#include "measure/probe.hpp"
#include "report/format.hpp"

namespace ema {
namespace {

struct column {
  std::string title;
  bool right;
};

struct grid {
  std::vector<column> columns;
  std::vector<std::vector<std::string>> rows;
};

std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xc0) != 0x80) ++w;  // count UTF-8 code points
  return w;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  auto w = display_width(s);
  std::string fill(width > w ? width - w : 0, ' ');
  return right ? fill + s : s + fill;
}

std::string render(const grid& g, table_style style) {
  std::vector<std::size_t> width;
  for (const auto& c : g.columns) width.push_back(display_width(c.title));
  for (const auto& r : g.rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], display_width(r[i]));
  std::string out;
  if (style == table_style::markdown) {
    auto line = [&](const std::vector<std::string>& cells) {
      out += "|";
      for (std::size_t i = 0; i < cells.size(); ++i) out += " " + pad(cells[i], width[i], g.columns[i].right) + " |";
      out += "\n";
    };
    std::vector<std::string> titles;
    for (const auto& c : g.columns) titles.push_back(c.title);
    line(titles);
    out += "|";
    for (std::size_t i = 0; i < width.size(); ++i)
      out += std::string(" ") + (g.columns[i].right ? std::string(width[i] - 1, '-') + ":" : std::string(width[i], '-')) + " |";
    out += "\n";
    for (const auto& r : g.rows) line(r);
    return out;
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i) l += (i ? "  " : "") + pad(cells[i], width[i], g.columns[i].right);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  std::vector<std::string> titles;
  for (const auto& c : g.columns) titles.push_back(c.title);
  line(titles);
  for (const auto& r : g.rows) line(r);
  return out;
}

double ceiling_value(const nlohmann::json& ceilings, const std::string& backend) {
  const char* name = ceiling_for_backend(backend);
  if (!*name || !ceilings.contains(name) || !ceilings[name].contains("value")) return std::nan("");
  return ceilings[name]["value"].get<double>();
}

int backend_rank(const std::string& b) {
  auto parsed = backend_from_string(b);
  return parsed ? static_cast<int>(*parsed) : 99;
}

std::string machine_line(const experiment_record& e) {
  const auto& m = e.machine;
  std::string s = fmt::format("{} ({} cores, {})", m["host"].value("cpu_model", "?"),
                              m["host"].value("logical_cores", 0),
                              format_bytes(m["host"].value("memory_bytes", 0.0)));
  if (m.contains("gpus") && !m["gpus"].empty()) {
    std::map<std::string, int> names;
    for (const auto& g : m["gpus"]) names[g.value("name", "?")]++;
    for (const auto& [name, count] : names) s += fmt::format("; {}x {}", count, name);
    if (m.contains("cuda")) s += fmt::format(", driver {}, CUDA {}", m["cuda"].value("driver", "?"), m["cuda"].value("runtime", "?"));
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
  out += fmt::format("{}machine: {}{}\n", md ? "- " : "", machine_line(e), md ? "" : "");
  out += fmt::format("{}ema {} ({}); command: {}\n", md ? "- " : "", e.ema_version, e.git_commit, e.command_line);
  if (md) out += "\n";

  // Group points by (problem, parameters), keeping plan order.
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& p : v.points) {
    std::pair key{p.record.problem, p.record.params_json};
    if (std::find(groups.begin(), groups.end(), key) == groups.end()) groups.push_back(key);
  }
  for (const auto& [problem, params_json] : groups) {
    std::vector<const point_view*> pts;
    for (const auto& p : v.points)
      if (p.record.problem == problem && p.record.params_json == params_json) pts.push_back(&p);
    std::stable_sort(pts.begin(), pts.end(), [](auto a, auto b) {
      if (a->record.n != b->record.n) return a->record.n < b->record.n;
      int ra = backend_rank(a->record.backend), rb = backend_rank(b->record.backend);
      if (ra != rb) return ra < rb;
      return a->record.variant < b->record.variant;
    });
    const problem_desc* desc = nullptr;
    for (auto* d : problems())
      if (problem == d->name) desc = d;
    param_map pm;
    auto pj = nlohmann::json::parse(params_json, nullptr, false);
    if (pj.is_object())
      for (const auto& [k, val] : pj.items()) pm[k] = val.get<std::string>();
    auto params = param_set::from_map(pm);

    out += "\n";
    out += md ? fmt::format("### {} ({})\n\n", problem, params.short_text())
              : fmt::format("{} — {} ({})\n", problem, desc ? desc->size_meaning : "n", params.short_text());
    if (md && desc) out += fmt::format("n: {}\n\n", desc->size_meaning);

    grid g;
    g.columns = {{"n", true},     {"variant", false}, {"total", true},  {"kernel", true},   {"GB/s", true},
                 {"% ceil", true}, {"vs seq", true},  {"vs omp", true}, {"energy/op", true}, {"status", false}};
    std::vector<std::string> footnotes;
    std::map<std::string, std::set<std::string>> unavailable;  // metric -> reasons
    std::map<std::uint64_t, std::map<std::string, double>> totals;
    for (auto* p : pts)
      if (p->record.status == point_status::ok) totals[p->record.n][p->record.variant] = p->median("total");
    for (auto* p : pts) {
      const auto& r = p->record;
      const bool ok = r.status == point_status::ok;
      double total = p->median("total"), kernel = p->median("kernel");
      std::vector<std::string> row;
      row.push_back(fmt::format("{}", r.n));
      row.push_back(r.variant);
      row.push_back(ok ? format_time(total) : "-");
      row.push_back(ok && std::isfinite(kernel) ? format_time(kernel) : "-");
      double rate = std::nan("");
      if (ok && desc) {
        double t = std::isfinite(kernel) ? kernel : total;
        rate = desc->work(r.n, params).bytes / t;
      }
      row.push_back(std::isfinite(rate) ? fmt::format("{:.1f}", rate / 1e9) : "-");
      row.push_back(format_percent(rate / ceiling_value(e.ceilings, r.backend)));
      auto speedup = [&](const char* ref) {
        auto it = totals[r.n].find(ref);
        return ok && it != totals[r.n].end() ? format_ratio(it->second / total) : std::string("-");
      };
      row.push_back(speedup("seq"));
      row.push_back(speedup("omp"));
      const std::string energy_metric = uses_gpu(backend_from_string(r.backend).value_or(backend::seq)) ? "energy_gpu" : "energy_cpu";
      double energy = p->median(energy_metric);
      if (std::isfinite(energy)) {
        row.push_back(format_energy(energy));
      } else if (p->unavailable.is_object() && p->unavailable.contains(energy_metric)) {
        row.push_back("unavailable");
        unavailable[energy_metric].insert(p->unavailable[energy_metric].get<std::string>());
      } else {
        row.push_back("-");
      }
      std::string status(to_string(r.status));
      if (!r.reason.empty()) {
        footnotes.push_back(fmt::format("[{}] {} n={}: {}", footnotes.size() + 1, r.variant, r.n, r.reason));
        status += fmt::format(" [{}]", footnotes.size());
      }
      row.push_back(status);
      g.rows.push_back(std::move(row));
    }
    out += render(g, style);
    if (md) out += "\n";
    const char* bullet = md ? "- " : "  ";
    out += fmt::format("{}medians; GB/s: bytes the problem must read over the kernel time (GPU) or the total time (CPU); "
                       "% ceil: of the probed read bandwidth for the back end; vs seq, vs omp: speedup in total time\n",
                       bullet);
    for (const auto& [metric, reasons] : unavailable)
      for (const auto& why : reasons) out += fmt::format("{}{}: unavailable ({})\n", bullet, metric, why);
    for (const auto& f : footnotes) out += fmt::format("{}{}\n", bullet, f);
  }
  if (!e.plan.is_null() && e.plan.contains("notes"))
    for (const auto& note : e.plan["notes"]) out += fmt::format("{}note: {}\n", md ? "- " : "", note.get<std::string>());
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
  return render(g, style);
}

}  // namespace ema
