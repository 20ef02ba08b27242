#include "cli/sweep_command.hpp"

#include <atomic>
#include <charconv>
#include <cmath>
#include <csignal>
#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <unistd.h>

#include "cli/exit_codes.hpp"
#include "core/duration.hpp"
#include "core/files.hpp"
#include "core/errors.hpp"
#include "core/sizes.hpp"
#include "core/text.hpp"
#include "inputs/input_cache.hpp"
#include "measure/energy.hpp"
#include "measure/host_load.hpp"
#include "measure/gpu.hpp"
#include "measure/machine.hpp"
#include "report/analysis_tables.hpp"
#include "report/exports.hpp"
#include "report/table.hpp"
#include "runner/isolate.hpp"
#include "measure/probe.hpp"
#include "runner/node.hpp"
#include "runner/sweep.hpp"

namespace ema {
const char* git_commit();
}

namespace ema::cli {
namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_stop_signal(int) { stop_requested = true; }

// The ceilings of this machine: the newest stored probe, or a fresh one in a child process. A probe
// an older ema stored without a ceiling this one measures (the compute roofs) is measured again.
nlohmann::json ceilings_for(database& db, const nlohmann::json& machine, const std::string& exe) {
  auto key = machine_key(machine);
  if (auto stored = db.latest_probe(key); stored && ceilings_complete((*stored)["ceilings"])) return (*stored)["ceilings"];
  // Once per node: no other ema process on it measures while this one probes, and a probe another
  // made in the last day is reused (the shards of a Slurm array on one node; runner/node.hpp).
  auto reuse = [&](const nlohmann::json& recent) {
    fmt::print(stderr, "ema: using this node's probe of {} (`ema probe` measures again)\n", recent.value("created_at", "?"));
    db.store_probe(key, machine, recent["ceilings"]);
    return recent["ceilings"];
  };
  auto fresh = [&] {
    auto recent = node_probe(key);
    return recent && ceilings_complete((*recent)["ceilings"]) ? recent : std::nullopt;
  };
  if (auto recent = fresh()) return reuse(*recent);
  const auto lock = node_lock::exclusive();          // waits for the points in flight on this node
  if (auto recent = fresh()) return reuse(*recent);  // another process probed meanwhile
  fmt::print(stderr, "ema: probing this machine's ceilings (once per machine; `ema probe` measures again)\n");
  auto child = run_isolated({exe, "__probe"}, "", 600, &stop_requested);
  if (child.interrupted) return nlohmann::json::object();  // the sweep stops before its first point
  auto ceilings = nlohmann::json::parse(child.answer, nullptr, false);
  if (!child.exited || child.exit_code != 0 || ceilings.is_discarded()) {
    fmt::print(stderr, "ema: the probe failed ({}); tables will show no % of ceiling\n",
               terminal_safe(child.exited ? child.stderr_tail : describe_signal(child.signal)));
    return nlohmann::json::object();
  }
  db.store_probe(key, machine, ceilings);
  save_node_probe(key, machine, ceilings);
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

// A number of seconds (or a fraction) must be finite and in (lo, hi], or [lo, hi] with `closed`.
void check_range(std::optional<double> v, const char* name, double lo, double hi, const char* unit, bool closed = false) {
  if (v && !(std::isfinite(*v) && (closed ? *v >= lo : *v > lo) && *v <= hi))
    throw usage_error(fmt::format("{} must be {} {:g} and at most {:g}{}, got {}", name, closed ? "at least" : "more than", lo, hi, unit, *v));
}
void check_count(std::optional<int> v, const char* name, int lo, int hi) {
  if (v && (*v < lo || *v > hi)) throw usage_error(fmt::format("{} must be between {} and {}, got {}", name, lo, hi, *v));
}

}  // namespace

void measurement_options::add_to(CLI::App& app) {
  app.add_option("--reps", reps, "exactly N timed repetitions per point (default: adaptive)");
  app.add_option("--min-reps", min_reps, "adaptive: at least N repetitions (default 5)");
  app.add_option("--max-reps", max_reps, "adaptive: at most N repetitions (default 2000)");
  app.add_option("--min-time", min_time, "adaptive: repeat for at least S seconds (default 0.2; 0.05 with --budget)");
  app.add_option("--max-time", max_time, "adaptive: stop repeating after S seconds (default 1)");
  app.add_option("--rse", rse, "adaptive: stop once the median's relative standard error is below X (default 0.01)");
  app.add_option("--warmup", warmup, "untimed runs before timing (default 1)");
  app.add_option("--timeout", timeout, "seconds per point before it is killed (default 300)");
  app.add_option("--energy-window", energy_window, "seconds of back-to-back runs per energy sample (default 1)");
  app.add_flag("--no-energy", no_energy, "do not measure energy");
  app.add_option("--seed", seed_text, "base seed of the inputs (default 1)");
  app.add_option("--instances", instances, "input instances per size, each with its own seed (default 1)");
  app.add_option("--rounds", rounds,
                 "measure each point R times, in R passes over the whole plan, each in a fresh process; the quickest round is kept, "
                 "so a slow spell of the machine rarely sets a size's time (default 1)");
  app.add_option("--budget", budget, "choose the sizes by calibration to fit this time, e.g. 90s, 2m, 1h (instead of --sizes)");
  app.add_option("--start", start, "with --budget: the first size (default: the problem's smallest default size)");
  app.add_option("--max-size", max_size, "with --budget: the largest size to grow to");
  app.add_option("--settle-share", settle_share,
                 "with --budget: the share of the budget growth leaves for the sizes the verdicts name, from 0 to 0.5 (default 0.1)");
  app.add_option("--order", order,
                 "the order the sizes run in: interleaved (default: neighbouring sizes far apart in time, so a busy spell of the "
                 "machine scatters instead of bending the curve) or ascending");
}

void measurement_options::fill(plan_request& r) const {
  constexpr int most_reps = 10000000;
  check_count(reps, "--reps", 1, most_reps);
  check_count(min_reps, "--min-reps", 1, most_reps);
  check_count(max_reps, "--max-reps", 1, most_reps);
  check_count(warmup, "--warmup", 0, most_reps);
  if (min_reps && max_reps && *min_reps > *max_reps) throw usage_error(fmt::format("--min-reps {} is more than --max-reps {}", *min_reps, *max_reps));
  check_range(min_time, "--min-time", 0, 86400, " s (a day)", true);
  check_range(max_time, "--max-time", 0, 86400, " s (a day)");
  if (min_time && max_time && *min_time > *max_time)
    throw usage_error(fmt::format("--min-time {:g} is more than --max-time {:g}", *min_time, *max_time));
  check_range(rse, "--rse", 0, 1, "");
  check_range(timeout, "--timeout", 0, 7 * 86400, " s (a week)");
  check_range(energy_window, "--energy-window", 0, 3600, " s (an hour)");
  check_range(settle_share, "--settle-share", 0, 0.5, "", true);
  if (seed_text.empty() || seed_text.find_first_not_of("0123456789") != std::string::npos)
    throw usage_error(fmt::format("--seed must be a whole number from 0 to 2^64 - 1, got '{}'", seed_text));
  std::uint64_t seed = 0;
  if (std::from_chars(seed_text.data(), seed_text.data() + seed_text.size(), seed).ec != std::errc())
    throw usage_error(fmt::format("--seed {} is larger than 2^64 - 1", seed_text));
  r.seed = seed;
  r.instances = instances;
  r.rounds = rounds;
  if (budget) {
    r.budget = parse_duration(*budget);
    if (*r.budget > 365 * 86400.0) throw usage_error(fmt::format("--budget {} is more than a year", *budget));
  }
  auto size_option = [](const std::optional<std::string>& text, const char* name) -> std::optional<std::uint64_t> {
    if (!text) return std::nullopt;
    try {
      return parse_size_number(*text);
    } catch (const usage_error& e) {
      throw usage_error(fmt::format("{}: {}", name, e.what()));
    }
  };
  r.start = size_option(start, "--start");
  r.max_size = size_option(max_size, "--max-size");
  r.settle_share = settle_share;
  if (order) {
    if (budget) throw usage_error("--order sets the order of the sizes of --sizes; a calibrated sweep (--budget) grows its sizes in turn");
    r.order = parse_size_order(*order);
  }
}

void measurement_options::apply(plan& p) const {
  if (reps) p.reps.fixed = *reps;
  if (min_reps) p.reps.min_reps = *min_reps;
  if (max_reps) p.reps.max_reps = *max_reps;
  if (warmup) p.reps.warmup = *warmup;
  if (min_time) p.reps.min_time = *min_time;
  if (max_time) p.reps.max_time = *max_time;
  // A --max-time below the default minimum lowers the minimum with it (--min-time is at most --max-time).
  if (!min_time) p.reps.min_time = std::min(p.reps.min_time, p.reps.max_time);
  if (rse) p.reps.target_rse = *rse;
  if (timeout) p.timeout = *timeout;
  if (energy_window) p.energy.window = *energy_window;
  p.energy.enabled = !no_energy;
}

void output_options::add_to(CLI::App& app) {
  app.add_option("--json", json, "also write the results as JSON (ema.run/1) to FILE, - for stdout");
  app.add_option("--csv", csv, "also write the results as CSV to FILE, - for stdout");
  app.add_option("--md", md, "also write the tables as Markdown to FILE, - for stdout");
  app.add_flag("--stats", stats, "also print the repeated-runs tables: mean, standard deviation, max, min and speedup; efficiency and cost");
  app.add_flag("--quiet,-q", quiet, "do not print the tables");
}

std::vector<output_path> output_options::paths() const { return given_outputs({{"--json", &json}, {"--csv", &csv}, {"--md", &md}}); }

reopened_experiment reopen_experiment(database& db, std::int64_t experiment_id) {
  auto claim = experiment_claim::take(db.path(), experiment_id);
  auto e = db.experiment(experiment_id);  // read again under the claim
  if (!e) throw usage_error(fmt::format("{} has no experiment {}", db.path(), experiment_id));
  plan p;
  try {
    p = plan::from_json(e->plan);
  } catch (const database_error& x) {
    throw database_error(fmt::format("database {}, experiment {}: {}", db.path(), experiment_id, x.what()));
  }
  db.set_experiment_state(experiment_id, "running");
  return {std::move(*e), std::move(p), std::move(claim)};
}

int carry_out(database& db, std::int64_t experiment_id, plan& p, const common_options& common, const output_options& o) {
  const auto exe = self_executable();
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGHUP, on_stop_signal);  // a closed terminal or ssh session: stop as for SIGTERM, the finished points stored
  if (o.quiet)                          // otherwise the tables end with the notes
    for (const auto& note : p.notes) fmt::print(stderr, "ema: {}\n", note);

  nlohmann::json idle;
  std::optional<experiment_claim> claim;
  if (!experiment_id) {
    experiment_record e;
    e.command_line = common.command_line;
    e.ema_version = EMA_VERSION;
    e.git_commit = git_commit();
    e.machine = describe_machine();
    e.ceilings = ceilings_for(db, e.machine, exe);
    e.idle_power = idle = measure_idle(p.energy.enabled && !p.external);
    e.plan = p.to_json();
    experiment_id = db.create_experiment(e);
    claim.emplace(experiment_claim::take(db.path(), experiment_id));
  } else {
    idle = db.experiment(experiment_id)->idle_power;
  }
  if (stop_requested) {
    db.set_experiment_state(experiment_id, "interrupted");
    return exit_code::interrupted;
  }

  sweep_settings s;
  s.worker = exe;
  s.progress = isatty(2) != 0 ? sweep_settings::progress_style::terminal : sweep_settings::progress_style::lines;
  s.stop = &stop_requested;
  auto result = run_sweep(db, experiment_id, p, idle, s);
  db.set_experiment_state(experiment_id, result.interrupted ? "interrupted" : "finished");
  if (!result.output_error.empty()) {
    fmt::print(stderr,
               "ema: {}\nema: the sweep stopped there; experiment {} keeps its finished points: make room (or fix the path), then "
               "`ema run --db {} --resume {}` runs the rest\n",
               terminal_safe(result.output_error), experiment_id, terminal_safe(shell_word(common.db)), experiment_id);
    return exit_code::output;
  }

  auto view = load_experiment(db, experiment_id);
  if (!o.quiet) print_text(render_tables(view, table_style::text));
  if (o.stats) print_text(render_analysis_tables(view, table_style::text));
  try {
    if (o.json) write_text(*o.json, json_text(to_run_json(view), 2) + "\n");
    if (o.csv) write_text(*o.csv, to_csv(view));
    if (o.md) write_text(*o.md, render_tables(view, table_style::markdown) + render_analysis_tables(view, table_style::markdown));
  } catch (const output_error& e) {
    fmt::print(stderr, "ema: {}\nema: experiment {} is stored in {}; `ema show --db {} {}` writes its files again\n", terminal_safe(e.what()),
               experiment_id, terminal_safe(common.db), terminal_safe(shell_word(common.db)), experiment_id);
    return exit_code::output;
  }
  if (result.interrupted) {
    fmt::print(stderr, "ema: interrupted; experiment {} keeps its finished points (`ema run --resume {}` continues)\n", experiment_id, experiment_id);
    return exit_code::interrupted;
  }
  fmt::print(stderr, "ema: experiment {} stored in {} ({} points run, {} failed, {} skipped{}{})\n", experiment_id, common.db, result.run,
             result.failed, result.skipped,
             result.growth_timeouts ? fmt::format("; {} track{} stopped growing at the point timeout, as planned", result.growth_timeouts,
                                                  result.growth_timeouts == 1 ? "" : "s")
                                    : "",
             result.settle_timeouts ? fmt::format("; {} settle point{} ran past the point timeout, beside the sizes measured", result.settle_timeouts,
                                                  result.settle_timeouts == 1 ? "" : "s")
                                    : "");
  // Points a busy machine disturbed, with no quiet measurement of the same point (report/view.hpp).
  int busy = 0;
  double others = 0, steal = 0;
  for (const auto& pt : view.points)
    if (pt.record.status == point_status::ok && disturbed(pt)) {
      ++busy;
      if (auto l = host_load::from_json(pt.notes.value("host_load", nlohmann::json()))) {
        if (others_took_cpus(*l)) others = std::max(others, l->others_cpus);
        if (hypervisor_stole(*l)) steal = std::max(steal, l->steal);
      }
    }
  if (busy) {
    std::string what;
    if (others > 0) what = fmt::format("other processes kept up to {:.1f} CPUs busy beside ema", others);
    if (steal > 0) what += fmt::format("{}the hypervisor stole up to {:.0f}% of the CPU time", what.empty() ? "" : "; ", 100 * steal);
    fmt::print(stderr,
               "ema: warning: {} point{} ran on a busy machine{}; {} times are slower than this machine's own: "
               "`ema run --db {} --rerun-noisy {}` measures them again\n",
               busy, busy == 1 ? "" : "s", what.empty() ? "" : " (" + what + ")", busy == 1 ? "its" : "their", terminal_safe(shell_word(common.db)),
               experiment_id);
  }
  return result.failed ? exit_code::points_failed : exit_code::ok;
}

namespace {

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ema/inputs";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/ema/inputs";
  return ".ema-cache";
}

}  // namespace

void cache_options::add_to(CLI::App& app, bool with_off) {
  app.add_option("--cache", dir, "folder of generated inputs, kept between runs; ema's own: new, empty or made by ema (default ~/.cache/ema/inputs)");
  app.add_option("--cache-cap", cap, "most the input cache may hold; the least recently used go first")->capture_default_str();
  if (with_off) app.add_flag("--no-cache", off, "build every input afresh and keep none on disk");
}

std::string cache_options::open(const std::string& db) const {
  const auto folder = dir.value_or(default_cache_dir());
  if (!is_utf8(folder))
    throw usage_error(fmt::format("--cache '{}' is not UTF-8 text; ema stores it in JSON, which cannot hold those bytes", valid_utf8(folder)));
  if (names_the_database(db, folder)) throw usage_error(fmt::format("--cache {} is the database; give the input cache a folder of its own", folder));
  return input_cache::open(folder).root().string();  // refused here if it holds others' files
}

double cache_options::cap_bytes() const {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(cap, &used);
  } catch (...) {
    used = 0;
  }
  const std::string unit = cap.substr(used);
  double scale = 1;
  if (unit == "" || unit == "B")
    scale = 1;
  else if (unit == "K" || unit == "KiB")
    scale = 1024.0;
  else if (unit == "M" || unit == "MiB")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "TiB")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    used = 0;
  if (!used || !(v > 0) || !std::isfinite(v * scale))
    throw usage_error(fmt::format("--cache-cap '{}' is not a size such as 500M, 2G or 1T", one_line(cap)));
  return v * scale;
}

}  // namespace ema::cli
