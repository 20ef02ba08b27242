// What else the machine did while a point ran: the CPUs that other processes kept busy, the CPU
// time a hypervisor stole, the one-minute load average, and how much CPU the point's own process
// used against its wall time. Read from /proc/stat and /proc/loadavg (Linux) before and after each
// point's child process; where /proc cannot be read the values are absent and nothing is judged.
// The environment variable EMA_PROC_ROOT reads them from another folder (a test's fixed counters).
//
// Why: a cost measured while another process shares the cores (a build, a second job, a busy VM
// host) is slower by an amount that has nothing to do with n, and a contention episode covers a
// stretch of consecutive sizes, which bends a fitted curve (issue 29, item 5). A point judged
// disturbed is named in `ema run`'s summary, in `ema fit` and in the report, and
// `ema run --rerun-noisy` measures it again in a fresh process (docs/measurement.md, "A busy machine").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ema {

/// The machine's CPU time so far, summed over its CPUs, in seconds (the first line of /proc/stat).
struct cpu_times {
  double busy = 0;   ///< user, nice, system, irq, softirq
  double idle = 0;   ///< idle and iowait
  double steal = 0;  ///< taken by the hypervisor for other guests
};

/// Where the kernel's counters are read: EMA_PROC_ROOT where set, else /proc.
std::string proc_root();

/// The machine's CPU times now; nullopt where `proc_stat` cannot be read or parsed.
std::optional<cpu_times> read_cpu_times(const std::string& proc_stat = proc_root() + "/stat");
/// The one-minute load average; nullopt where it cannot be read.
std::optional<double> read_load_average(const std::string& proc_loadavg = proc_root() + "/loadavg");

/// What the machine did during one point.
struct host_load {
  double wall = 0;         ///< seconds the point's process ran
  double own_cpus = 0;     ///< its CPU seconds (user + system, with the children it waited for) per wall second
  double others_cpus = 0;  ///< CPUs kept busy by every other process, on average over the wall time
  double steal = 0;        ///< the fraction of the machine's CPU time stolen by the hypervisor
  double load1 = -1;       ///< the one-minute load average at the end (-1: unknown)
  int cpus = 0;            ///< the CPUs the machine counts

  nlohmann::json to_json() const;
  /// A stored host_load; nullopt for anything else (points stored before ema measured it).
  static std::optional<host_load> from_json(const nlohmann::json& j);
};

/// Shortest point whose load is judged: below it /proc/stat's clock ticks (10 ms) are too coarse.
constexpr double host_load_min_wall = 0.05;

/// The load over a point from the CPU times before and after it; nullopt for a point shorter than
/// host_load_min_wall.
std::optional<host_load> load_during(const cpu_times& before, const cpu_times& after, double wall, double own_cpu_seconds, int cpus, double load1);

/// Why the point's times are not to be trusted as the machine's own, or "" when it was quiet:
/// other processes kept at least half a CPU busy and at least half of the CPUs the point left free
/// (a sequential variant on 16 cores shares them with one busy process without harm; a variant using
/// both of 2 cores does not), or the hypervisor stole 10% or more of the CPU time (the H200 machine's
/// VM: 0 in most points, 3.8% at the 99th percentile, 5.6% at most over 610 points).
std::string disturbance(const host_load& l);
/// The two reasons apart: other processes took the CPUs the point left free; the hypervisor stole.
bool others_took_cpus(const host_load& l);
bool hypervisor_stole(const host_load& l);

/// Snapshots the machine before a child process runs; `finish` gives its load once it has ended.
class host_load_meter {
 public:
  host_load_meter();
  /// The load while the child ran (`wall` seconds, `own_cpu_seconds` of CPU); nullopt where /proc
  /// cannot be read or the child was too short to judge.
  std::optional<host_load> finish(double wall, double own_cpu_seconds) const;

 private:
  std::optional<cpu_times> before_;
};

}  // namespace ema
