// `ema run`: builds a plan, makes sure the machine's ceilings and idle power are known, records an
// experiment, sweeps it point by point in child processes, then prints and exports the tables.
#include <atomic>
#include <csignal>
#include <fmt/format.h>
#include <optional>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/errors.hpp"
#include "measure/energy.hpp"
#include "measure/gpu.hpp"
#include "measure/machine.hpp"
#include "report/exports.hpp"
#include "report/table.hpp"
#include "runner/isolate.hpp"
#include "runner/plan.hpp"
#include "runner/sweep.hpp"

namespace ema {
const char* git_commit();
}

namespace ema::cli {
namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_stop_signal(int) { stop_requested = true; }

struct run_options {
  std::vector<std::string> problems;
  bool all = false;
  std::string variants;
  std::optional<std::string> sizes;
  std::vector<std::string> params;
  std::optional<int> reps, min_reps, max_reps, warmup;
  std::optional<double> min_time, max_time, rse, timeout, energy_window;
  bool no_energy = false;
  std::uint64_t seed = 1;
  std::optional<std::string> json, csv, md;
  std::optional<std::string> resume;
  bool resume_flag = false;
  bool quiet = false;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto c = s.find(',', start);
    auto item = s.substr(start, c == std::string::npos ? std::string::npos : c - start);
    if (!item.empty()) out.push_back(item);
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return out;
}

// The ceilings of this machine: the newest stored probe, or a fresh one in a child process.
nlohmann::json ceilings_for(database& db, const nlohmann::json& machine, const std::string& exe) {
  auto key = machine_key(machine);
  if (auto stored = db.latest_probe(key)) return (*stored)["ceilings"];
  fmt::print(stderr, "ema: probing this machine's ceilings (once per machine; `ema probe` measures again)\n");
  auto child = run_isolated({exe, "__probe"}, "", 600, &stop_requested);
  auto ceilings = nlohmann::json::parse(child.answer, nullptr, false);
  if (!child.exited || child.exit_code != 0 || ceilings.is_discarded()) {
    fmt::print(stderr, "ema: the probe failed ({}); tables will show no % of ceiling\n",
               child.exited ? child.stderr_tail : describe_signal(child.signal));
    return nlohmann::json::object();
  }
  db.store_probe(key, machine, ceilings);
  return ceilings;
}

// Idle power of every energy source before the sweep: per GPU, CPU package, DRAM.
nlohmann::json measure_idle(bool enabled) {
  nlohmann::json idle = nlohmann::json::object();
  if (!enabled) return idle;
  const auto& g = gpu::query();
  std::vector<energy_source> sources;
  for (const auto& d : g.devices) {
    auto s = open_energy_sources({d.pci_bus_id}, g.unavailable);
    sources.push_back(s[0]);
  }
  auto cpu = open_energy_sources({}, "");
  sources.push_back(cpu[1]);
  sources.push_back(cpu[2]);
  bool any = false;
  for (const auto& s : sources) any |= static_cast<bool>(s.read);
  if (!any) return idle;
  fmt::print(stderr, "ema: measuring idle power (2 s)\n");
  auto watts = idle_power(sources, 2.0);
  auto as_json = [](double w) { return std::isnan(w) ? nlohmann::json(nullptr) : nlohmann::json(w); };
  idle["energy_gpu"] = nlohmann::json::array();
  for (std::size_t i = 0; i < g.devices.size(); ++i) idle["energy_gpu"].push_back(as_json(watts[i]));
  idle["energy_cpu"] = as_json(watts[g.devices.size()]);
  idle["energy_dram"] = as_json(watts[g.devices.size() + 1]);
  return idle;
}

void check_positive(std::optional<double> v, const char* name) {
  if (v && !(*v > 0)) throw usage_error(fmt::format("{} must be positive, got {}", name, *v));
}
void check_positive(std::optional<int> v, const char* name) {
  if (v && *v < 1) throw usage_error(fmt::format("{} must be at least 1, got {}", name, *v));
}

int run(const run_options& o, const common_options& common) {
  const auto exe = self_executable();
  std::optional<database> db;
  plan p;
  std::int64_t experiment_id = 0;
  nlohmann::json idle;

  if (o.resume_flag) {
    if (!o.problems.empty() || o.all) throw usage_error("--resume continues a stored plan; give no problem with it");
    db.emplace(database::open_write(common.db));
    std::optional<experiment_record> e;
    if (o.resume && !o.resume->empty()) {
      std::int64_t id = 0;
      try {
        id = std::stoll(*o.resume);
      } catch (...) {
        throw usage_error(fmt::format("--resume takes an experiment number, got '{}'", *o.resume));
      }
      e = db->experiment(id);
      if (!e) throw usage_error(fmt::format("{} has no experiment {}", common.db, id));
    } else {
      e = db->latest_experiment(true);
      if (!e) throw usage_error(fmt::format("{} has no unfinished experiment to resume", common.db));
    }
    if (e->state == "finished") throw usage_error(fmt::format("experiment {} is already finished", e->id));
    p = plan::from_json(e->plan);
    experiment_id = e->id;
    idle = e->idle_power;
    db->set_experiment_state(experiment_id, "running");
    fmt::print(stderr, "ema: resuming experiment {} ({} of {} points stored)\n", experiment_id,
               db->recorded_ordinals(experiment_id).size(), p.points.size());
  } else {
    check_positive(o.reps, "--reps");
    check_positive(o.min_reps, "--min-reps");
    check_positive(o.max_reps, "--max-reps");
    check_positive(o.max_time, "--max-time");
    if (o.min_time && *o.min_time < 0) throw usage_error("--min-time cannot be negative");
    check_positive(o.rse, "--rse");
    check_positive(o.timeout, "--timeout");
    check_positive(o.energy_window, "--energy-window");
    if (o.warmup && *o.warmup < 0) throw usage_error("--warmup cannot be negative");
    plan_request r;
    r.problems = o.problems;
    r.all = o.all;
    r.variants = split_commas(o.variants);
    r.sizes = o.sizes;
    r.params = o.params;
    r.seed = o.seed;
    p = make_plan(r);  // validates everything before the database is touched
    if (o.reps) p.reps.fixed = *o.reps;
    if (o.min_reps) p.reps.min_reps = *o.min_reps;
    if (o.max_reps) p.reps.max_reps = *o.max_reps;
    if (o.warmup) p.reps.warmup = *o.warmup;
    if (o.min_time) p.reps.min_time = *o.min_time;
    if (o.max_time) p.reps.max_time = *o.max_time;
    if (o.rse) p.reps.target_rse = *o.rse;
    if (o.timeout) p.timeout = *o.timeout;
    if (o.energy_window) p.energy.window = *o.energy_window;
    p.energy.enabled = !o.no_energy;
    if (p.points.empty()) throw usage_error("the plan has no points");
    db.emplace(database::open_write(common.db));
  }

  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  if (o.quiet)  // otherwise the tables end with the notes
    for (const auto& note : p.notes) fmt::print(stderr, "ema: {}\n", note);

  if (!experiment_id) {
    experiment_record e;
    e.command_line = common.command_line;
    e.ema_version = EMA_VERSION;
    e.git_commit = git_commit();
    e.machine = describe_machine();
    e.ceilings = ceilings_for(*db, e.machine, exe);
    e.idle_power = idle = measure_idle(p.energy.enabled);
    e.plan = p.to_json();
    experiment_id = db->create_experiment(e);
  }
  if (stop_requested) {
    db->set_experiment_state(experiment_id, "interrupted");
    return exit_code::interrupted;
  }

  sweep_settings s;
  s.worker = exe;
  s.progress = isatty(2) != 0;
  s.stop = &stop_requested;
  auto result = run_sweep(*db, experiment_id, p, idle, s);
  db->set_experiment_state(experiment_id, result.interrupted ? "interrupted" : "finished");

  auto view = load_experiment(*db, experiment_id);
  if (!o.quiet) fmt::print("{}", render_tables(view, table_style::text));
  if (o.json) write_text(*o.json, to_run_json(view).dump(2) + "\n");
  if (o.csv) write_text(*o.csv, to_csv(view));
  if (o.md) write_text(*o.md, render_tables(view, table_style::markdown));
  if (result.interrupted) {
    fmt::print(stderr, "ema: interrupted; experiment {} keeps its finished points (`ema run --resume {}` continues)\n",
               experiment_id, experiment_id);
    return exit_code::interrupted;
  }
  fmt::print(stderr, "ema: experiment {} stored in {} ({} points run, {} failed, {} skipped)\n", experiment_id,
             common.db, result.run, result.failed, result.skipped);
  return result.failed ? exit_code::points_failed : exit_code::ok;
}

}  // namespace

action add_run(CLI::App& app, common_options& common) {
  auto o = std::make_shared<run_options>();
  app.add_option("problem", o->problems, "problem(s) to run (see `ema list`)");
  app.add_flag("--all", o->all, "run every registered problem");
  app.add_option("--variants", o->variants, "comma-separated variants (default: every one that can run here)");
  app.add_option("--sizes", o->sizes, "sizes: 2^10..2^28, 1000,2000, 2^10..2^20*4, 2000..5000+1000");
  app.add_option("--param,-p", o->params, "problem parameter key=value (repeatable)")->allow_extra_args(false);
  app.add_option("--reps", o->reps, "exactly N timed repetitions per point (default: adaptive)");
  app.add_option("--min-reps", o->min_reps, "adaptive: at least N repetitions (default 5)");
  app.add_option("--max-reps", o->max_reps, "adaptive: at most N repetitions (default 2000)");
  app.add_option("--min-time", o->min_time, "adaptive: repeat for at least S seconds (default 0.2)");
  app.add_option("--max-time", o->max_time, "adaptive: stop repeating after S seconds (default 1)");
  app.add_option("--rse", o->rse, "adaptive: stop once the median's relative standard error is below X (default 0.01)");
  app.add_option("--warmup", o->warmup, "untimed runs before timing (default 1)");
  app.add_option("--timeout", o->timeout, "seconds per point before it is killed (default 300)");
  app.add_option("--energy-window", o->energy_window, "seconds of back-to-back runs per energy sample (default 1)");
  app.add_flag("--no-energy", o->no_energy, "do not measure energy");
  app.add_option("--seed", o->seed, "base seed of the inputs (default 1)");
  app.add_option("--db", common.db, "results database")->capture_default_str();
  app.add_option("--json", o->json, "also write the results as JSON (ema.run/1) to FILE, - for stdout");
  app.add_option("--csv", o->csv, "also write the results as CSV to FILE, - for stdout");
  app.add_option("--md", o->md, "also write the tables as Markdown to FILE, - for stdout");
  app.add_option("--resume", o->resume, "continue an interrupted experiment (default: the newest unfinished)")
      ->expected(0, 1);
  app.add_flag("--quiet,-q", o->quiet, "do not print the tables");
  return [o, &app, &common] {
    o->resume_flag = app.count("--resume") > 0;
    return run(*o, common);
  };
}

}  // namespace ema::cli
