#include "measure/host_load.hpp"

#include "measure/kernel_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

namespace ema {

std::string proc_root() {
  const char* root = std::getenv("EMA_PROC_ROOT");
  return root && *root ? root : "/proc";
}

std::optional<cpu_times> read_cpu_times(const std::string& proc_stat) {
  const auto line = read_first_line(proc_stat, 512);  // "cpu" and ten counters
  if (!line) return std::nullopt;
  std::istringstream s(*line);
  std::string label;
  s >> label;
  if (label != "cpu") return std::nullopt;
  // user nice system idle iowait irq softirq steal [guest guest_nice: already counted in user and nice]
  double f[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int read = 0;
  for (; read < 8 && (s >> f[read]); ++read) {
  }
  if (read < 4) return std::nullopt;
  const long hz = ::sysconf(_SC_CLK_TCK);
  const double tick = hz > 0 ? 1.0 / static_cast<double>(hz) : 0.01;
  cpu_times t;
  t.busy = (f[0] + f[1] + f[2] + f[5] + f[6]) * tick;
  t.idle = (f[3] + f[4]) * tick;
  t.steal = f[7] * tick;
  return t;
}

std::optional<double> read_load_average(const std::string& proc_loadavg) {
  const auto line = read_first_line(proc_loadavg, 256);
  if (!line) return std::nullopt;
  std::istringstream in(*line);
  double l = 0;
  if (!(in >> l) || !(l >= 0) || !std::isfinite(l)) return std::nullopt;
  return l;
}

nlohmann::json host_load::to_json() const {
  nlohmann::json j = {{"wall_s", wall}, {"own_cpus", own_cpus}, {"others_cpus", others_cpus}, {"steal", steal}, {"cpus", cpus}};
  if (load1 >= 0) j["load1"] = load1;
  return j;
}

std::optional<host_load> host_load::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  auto number = [&](const char* k, double& out) {
    if (!j.contains(k) || !j[k].is_number()) return false;
    out = j[k].get<double>();
    return true;
  };
  host_load l;
  double cpus = 0;
  if (!number("wall_s", l.wall) || !number("own_cpus", l.own_cpus) || !number("others_cpus", l.others_cpus) || !number("steal", l.steal) ||
      !number("cpus", cpus))
    return std::nullopt;
  l.cpus = static_cast<int>(cpus);
  number("load1", l.load1);
  return l;
}

std::optional<host_load> load_during(const cpu_times& before, const cpu_times& after, double wall, double own_cpu_seconds, int cpus, double load1) {
  if (!(wall >= host_load_min_wall) || cpus <= 0) return std::nullopt;
  const double busy = after.busy - before.busy, idle = after.idle - before.idle, steal = after.steal - before.steal;
  const double total = busy + idle + steal;
  if (!(total > 0) || busy < 0 || idle < 0 || steal < 0) return std::nullopt;  // a counter went back (a wrapped or reset /proc)
  host_load l;
  l.wall = wall;
  l.cpus = cpus;
  l.own_cpus = std::max(0.0, own_cpu_seconds / wall);
  // The busy time the machine counted in the span, less the point's own, per wall second. The span
  // of the counters is the child's wall time and a little of ema's (a few ms), so small negative
  // values are rounding: they read as none.
  l.others_cpus = std::max(0.0, (busy - own_cpu_seconds) / wall);
  l.steal = steal / total;
  l.load1 = load1;
  return l;
}

bool others_took_cpus(const host_load& l) {
  const double free_cpus = std::max(1.0, l.cpus - l.own_cpus);
  return l.others_cpus >= 0.5 && l.others_cpus >= 0.5 * free_cpus;
}

bool hypervisor_stole(const host_load& l) { return l.steal >= 0.10; }

std::string disturbance(const host_load& l) {
  std::string why;
  if (others_took_cpus(l))
    why = fmt::format("other processes kept {:.1f} of the {} CPUs busy while it ran (it used {:.1f})", l.others_cpus, l.cpus, l.own_cpus);
  if (hypervisor_stole(l)) why += fmt::format("{}the hypervisor stole {:.0f}% of the CPU time", why.empty() ? "" : "; ", 100 * l.steal);
  return why;
}

host_load_meter::host_load_meter() : before_(read_cpu_times()) {}

std::optional<host_load> host_load_meter::finish(double wall, double own_cpu_seconds) const {
  if (!before_) return std::nullopt;
  const auto after = read_cpu_times();
  if (!after) return std::nullopt;
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return load_during(*before_, *after, wall, own_cpu_seconds, online > 0 ? static_cast<int>(online) : 1, read_load_average().value_or(-1));
}

}  // namespace ema
