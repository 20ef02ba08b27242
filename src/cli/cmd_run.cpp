// `ema run`: builds a plan of registered problems and variants (fixed sizes, or sizes calibrated
// to a time budget), records an experiment, sweeps it point by point in child processes, then
// prints and exports the tables. `--resume` continues an interrupted experiment; `--rerun-noisy`
// measures again the points of a stored one that a busy machine disturbed.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/outputs.hpp"
#include "cli/sweep_command.hpp"
#include "core/files.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/text.hpp"
#include "runner/plan.hpp"
#include "runner/shard.hpp"
#include "analysis/class_set.hpp"
#include "report/fits.hpp"
#include "report/view.hpp"

namespace ema::cli {
namespace {

struct run_options {
  std::vector<std::string> problems;
  bool all = false;
  std::optional<std::string> variants;
  std::optional<std::string> sizes;
  std::vector<std::string> params;
  std::optional<std::string> threads;    ///< --threads LIST: `--param launch.omp_threads=LIST`
  std::optional<std::string> sms;        ///< --sms LIST: `--param launch.sms=LIST`
  std::optional<std::string> gpus;       ///< --gpus LIST: `--param launch.gpus=LIST`
  std::optional<std::string> bind;       ///< --bind LIST: `--param launch.omp_bind=LIST`
  std::optional<std::string> weak;       ///< --weak LIST: weak scaling from these sizes
  std::optional<std::string> processes;  ///< --processes point|track|auto
  measurement_options measure;
  output_options out;
  cache_options cache;
  std::optional<std::string> resume;
  bool resume_flag = false;
  std::optional<std::string> rerun_noisy;
  bool rerun_flag = false;
  std::optional<std::string> shard;
  std::optional<std::string> costs_from;
  bool db_given = false;
};

// A shard's database when --db is not given: on this node's local disk (SQLite's locking is not
// safe over network file systems), in a folder made for this run alone (mkdtemp: mode 0700, a
// fresh name), so that no one else can have planted a link or a forged shard there. It is never
// reused: to continue the shard, give its database with --db.
std::string local_shard_database(const plan& p) {
  const char* tmp = std::getenv("TMPDIR");
  std::string folder =
      fmt::format("{}/ema-shard-{}-{}-of-{}.XXXXXX", tmp && *tmp ? tmp : "/tmp", p.shard->digest.substr(0, 12), p.shard->index, p.shard->count);
  if (!::mkdtemp(folder.data()))
    throw usage_error(fmt::format("cannot make a folder for shard {}/{} under {}: {}; give its database with --db", p.shard->index, p.shard->count,
                                  tmp && *tmp ? tmp : "/tmp", std::strerror(errno)));
  return folder + "/shard.db";
}

// A shard already started in this database (the same plan and part): its experiment, to resume.
std::optional<experiment_record> started_shard(database& db, const shard_spec& s) {
  for (auto& e : db.experiments()) {
    const auto& sh = e.plan.value("shard", nlohmann::json::object());
    if (sh.value("digest", "") == s.digest && sh.value("index", -1) == s.index && sh.value("count", -1) == s.count) return e;
  }
  return std::nullopt;
}

// The database of a stored experiment, opened to add to it; usage_error when there is no such file
// (opening would make an empty one).
database open_stored(const std::string& path, const char* option) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw usage_error(fmt::format("{} does not exist: {} works on an experiment stored there", path, option));
  return database::open_write(path);
}

// The experiment `text` names (a number), else the newest one (`--resume`: the newest unfinished).
experiment_record chosen_record(database& db, const std::optional<std::string>& text, const char* option, const std::string& path) {
  const bool unfinished = std::string_view(option) == "--resume";
  if (text && !text->empty()) {
    std::int64_t id = 0;
    try {
      std::size_t used = 0;
      id = std::stoll(*text, &used);
      if (used != text->size()) throw std::invalid_argument(*text);
    } catch (...) {
      throw usage_error(fmt::format("{} takes an experiment number, got '{}'", option, *text));
    }
    auto e = db.experiment(id);
    if (!e) throw usage_error(fmt::format("{} has no experiment {}", path, id));
    return *e;
  }
  auto e = db.latest_experiment(unfinished);
  if (!e) throw usage_error(fmt::format("{} has no {}experiment{}", path, unfinished ? "unfinished " : "", unfinished ? " to resume" : ""));
  return *e;
}

// The first option given that shapes a new plan ("" for none): --resume and --rerun-noisy work on a
// stored plan, and would otherwise leave it unused without a word.
std::string plan_option_given(const run_options& o) {
  if (!o.problems.empty()) return "problem";
  const std::pair<bool, const char*> given[] = {{o.all, "--all"},
                                                {o.variants.has_value(), "--variants"},
                                                {o.sizes.has_value(), "--sizes"},
                                                {!o.params.empty(), "--param"},
                                                {o.threads.has_value(), "--threads"},
                                                {o.sms.has_value(), "--sms"},
                                                {o.gpus.has_value(), "--gpus"},
                                                {o.bind.has_value(), "--bind"},
                                                {o.weak.has_value(), "--weak"},
                                                {o.processes.has_value(), "--processes"},
                                                {o.measure.rounds != 1, "--rounds"}};
  for (const auto& [yes, name] : given)
    if (yes) return name;
  return "";
}

int resume(const run_options& o, const common_options& common) {
  if (const auto given = plan_option_given(o); !given.empty())
    throw usage_error(fmt::format("--resume continues a stored plan; give no {} with it", given));
  if (o.shard)
    throw usage_error(
        "--resume continues a stored experiment, a shard's included; give no --shard with it (or run the shard's own "
        "command again: it finishes its part)");
  check_outputs(common.db, o.out.paths());
  auto db = open_stored(common.db, "--resume");
  const auto e = chosen_record(db, o.resume, "--resume", common.db);
  if (e.state == "finished") throw usage_error(fmt::format("experiment {} is already finished", e.id));
  auto outputs = o.out.paths();  // the stored plan's output files too, before it is marked running again
  for (auto& x : parameter_outputs(plan::from_json(e.plan))) outputs.push_back(std::move(x));
  check_outputs(common.db, outputs);
  auto r = reopen_experiment(db, e.id);
  fmt::print(stderr, "ema: resuming experiment {} ({} of {} points stored)\n", e.id, db.recorded_ordinals(e.id).size(), r.p.points.size());
  return carry_out(db, e.id, r.p, common, o.out);
}

// `--rerun-noisy`: measures again, each in a fresh process, the points of an experiment that ran
// while the machine was busy (measure/host_load.hpp) and those whose total time lies off both
// neighbours (analysis/class_set.hpp off_neighbours). The new measurements replace the old in tables
// and fits (report/view.hpp); the old stay in the database.
int rerun_noisy(const run_options& o, const common_options& common) {
  if (const auto given = o.shard ? std::string("--shard") : plan_option_given(o); !given.empty())
    throw usage_error(fmt::format("--rerun-noisy measures again points of a stored experiment; give no {} with it", given));
  if (o.resume_flag) throw usage_error("give --rerun-noisy or --resume, not both");
  check_outputs(common.db, o.out.paths());
  auto db = open_stored(common.db, "--rerun-noisy");
  const auto e = chosen_record(db, o.rerun_noisy, "--rerun-noisy", common.db);
  if (e.state != "finished")
    throw usage_error(
        fmt::format("experiment {} is {}, not finished: finish it first (ema run --resume {}), then measure its noisy "
                    "points again",
                    e.id, e.state, e.id));
  const auto view = load_experiment(db, e.id);
  // The points to measure again, by ordinal, with why.
  std::map<int, std::string> again;
  for (const auto& pt : view.points)
    if (pt.record.status == point_status::ok)
      if (auto d = disturbed(pt)) again.emplace(pt.record.ordinal, *d);
  std::set<std::tuple<std::string, std::string, std::string>> series_done;
  for (const auto& pt : view.points) {
    const auto& r = pt.record;
    if (!series_done.insert({r.problem, r.params_json, r.variant}).second) continue;
    const auto data = variant_series(view, r.problem, r.params_json, r.variant, "total", point_stat::median);
    for (const auto& off : fit::off_neighbours(data))
      for (const auto& q : view.points)
        if (q.record.problem == r.problem && q.record.params_json == r.params_json && q.record.variant == r.variant &&
            q.record.status == point_status::ok && static_cast<double>(q.record.n) == off.n)
          again.emplace(q.record.ordinal, fmt::format("its total time lies {:+.0f}% off both neighbours", 100 * off.departure));
  }
  if (again.empty()) {
    fmt::print(stderr, "ema: experiment {}: no point ran on a busy machine or lies off its neighbours; nothing to measure again\n", e.id);
    return exit_code::ok;
  }
  auto r = reopen_experiment(db, e.id);
  for (const auto& [ordinal, why] : again) {
    auto it = std::find_if(r.p.points.begin(), r.p.points.end(), [&](const plan_point& x) { return x.ordinal == ordinal; });
    if (it == r.p.points.end()) continue;
    plan_point pt = *it;
    pt.ordinal = std::max(r.p.points.back().ordinal + 1, r.p.whole_size());
    pt.phase = "rerun";
    fmt::print(stderr, "ema: measuring again {} {} n={}: {}\n", pt.problem, pt.variant, pt.n, terminal_safe(why));
    r.p.points.push_back(std::move(pt));
  }
  db.set_experiment_plan(e.id, r.p.to_json());
  return carry_out(db, e.id, r.p, common, o.out);
}

// The plan the options ask for, with their measurement settings; usage_error naming what is wrong.
plan plan_of(const run_options& o) {
  plan_request r;
  r.problems = o.problems;
  r.all = o.all;
  if (o.variants) {
    r.variants = split_commas(*o.variants);
    if (r.variants.empty()) throw usage_error("--variants is empty: name variants, or leave it out to run every one");
  }
  r.sizes = o.sizes;
  r.weak = o.weak;
  r.params = o.params;
  if (o.threads) {
    for (const auto& a : o.params)
      if (a.starts_with("launch.omp_threads=")) throw usage_error("give --threads or --param launch.omp_threads, not both");
    r.params.push_back("launch.omp_threads=" + *o.threads);
  }
  if (o.bind) {
    for (const auto& a : o.params)
      if (a.starts_with("launch.omp_bind=")) throw usage_error("give --bind or --param launch.omp_bind, not both");
    r.params.push_back("launch.omp_bind=" + *o.bind);
  }
  if (o.gpus) {
    for (const auto& a : o.params)
      if (a.starts_with("launch.gpus=")) throw usage_error("give --gpus or --param launch.gpus, not both");
    r.params.push_back("launch.gpus=" + *o.gpus);
  }
  if (o.sms) {
    for (const auto& a : o.params)
      if (a.starts_with("launch.sms=")) throw usage_error("give --sms or --param launch.sms, not both");
    r.params.push_back("launch.sms=" + *o.sms);
  }
  o.measure.fill(r);
  auto p = make_plan(r);  // validates everything before the database is touched
  // A calibrated sweep's own minimum of timed runs; --min-time, applied next, prevails.
  if (p.calibrated) p.reps.min_time = repetition_policy::calibrated_min_time;
  o.measure.apply(p);
  // Which points share a worker process: by default, a calibrated sweep keeps one per GPU track.
  const std::string processes = o.processes.value_or("auto");
  if (processes == "auto")
    p.processes = p.calibrated ? process_policy::gpu_track : process_policy::point;
  else if (const auto policy = process_policy_from(processes))
    p.processes = *policy;
  else
    throw usage_error(fmt::format("--processes must be point, track, gpu-track or auto, got '{}'", processes));
  if (p.points.empty() && (!p.calibrated || p.calibrated->tracks.empty())) throw usage_error("the plan has no points");
  return p;
}

int run(const run_options& o, const common_options& common) {
  if (o.rerun_flag) return rerun_noisy(o, common);
  if (o.resume_flag) return resume(o, common);
  auto p = plan_of(o);
  if (o.costs_from && !o.shard) throw usage_error("--costs-from balances the parts of a sharded plan; give it with --shard");
  if (o.shard && p.rounds > 1)
    throw usage_error(
        "--rounds passes over the whole plan, a shard over its part only: give --rounds without --shard (or run each shard's "
        "command again into its own database and merge them)");
  if (o.shard) {
    const auto costs = o.costs_from ? costs_from(*o.costs_from) : point_costs{};
    apply_shard(p, parse_shard(*o.shard), &costs);
  }
  // The input cache, opened only for a plan with a problem that keeps built inputs (bfs's graphs).
  bool caches = false;
  for (const auto& pt : p.points) caches = caches || find_problem(pt.problem).cached_inputs;
  if (p.calibrated)
    for (const auto& t : p.calibrated->tracks) caches = caches || find_problem(t.problem).cached_inputs;
  if (caches && !o.cache.off) {
    p.input_cache_cap = o.cache.cap_bytes();
    p.input_cache_dir = o.cache.open(common.db);
  }
  // Every file this run writes, checked against every database it touches and their journals.
  std::vector<std::string> touched = {common.db};
  if (o.costs_from) {
    touched.push_back(*o.costs_from);
    if (o.db_given && names_the_database(*o.costs_from, common.db))
      throw usage_error(fmt::format("--db {} is the --costs-from database (or one of its files): give the shard a database of its own", common.db));
  }
  auto outputs = o.out.paths();
  for (auto& x : parameter_outputs(p)) outputs.push_back(std::move(x));
  check_outputs(touched, outputs);
  common_options where = common;
  if (p.shard && !o.db_given) {
    where.db = local_shard_database(p);
    fmt::print(stderr,
               "ema: shard {}/{} writes to {} (this node's disk, a folder of this run's own: copy it off when the task ends, "
               "then `ema merge`; --db continues it)\n",
               p.shard->index, p.shard->count, terminal_safe(where.db));
  }
  auto db = database::open_write(where.db);
  if (p.shard)
    if (auto e = started_shard(db, *p.shard)) {  // a task run again: finish its part, never start it twice
      if (e->state == "finished") {
        fmt::print(stderr, "ema: shard {}/{} is already finished in {} (experiment {})\n", p.shard->index, p.shard->count, where.db, e->id);
        return exit_code::ok;
      }
      auto r = reopen_experiment(db, e->id);
      fmt::print(stderr, "ema: resuming shard {}/{}, experiment {} ({} of its {} points stored)\n", p.shard->index, p.shard->count, e->id,
                 db.recorded_ordinals(e->id).size(), p.shard->ordinals.size());
      return carry_out(db, e->id, r.p, where, o.out);
    }
  return carry_out(db, 0, p, where, o.out);
}

void register_run_options(CLI::App& app, run_options& o, common_options& common) {
  app.add_option("problem", o.problems, "problem(s) to run (see `ema list`)");
  app.add_flag("--all", o.all, "run every registered problem");
  app.add_option("--variants", o.variants, "comma-separated variants (default: every one that can run here)");
  app.add_option("--sizes", o.sizes, "sizes: 2^10..2^28, 1000,2000, 2^10..2^20*4, 2000..5000+1000");
  app.add_option("--param,-p", o.params,
                 "problem parameter key=value (repeatable); a list makes an axis: k=1,2,8; k=1..4 is 1,2,3,4; k=1..16*2 doubles")
      ->allow_extra_args(false);
  app.add_option("--threads", o.threads,
                 "OpenMP threads of every OpenMP variant, a processor axis: 1..16 is 1, 2, ..., 16; 1..16*2 doubles (the same as --param "
                 "launch.omp_threads=LIST; at most the CPUs this process may run on)");
  app.add_option("--bind", o.bind,
                 "where every OpenMP variant's threads run: close (neighbouring cores), spread (over the machine), primary or false (no "
                 "binding); a list makes an axis: close,spread (the same as --param launch.omp_bind=LIST; sets OMP_PROC_BIND, and "
                 "OMP_PLACES=cores where none is set, in each worker)");
  app.add_option("--weak", o.weak,
                 "weak scaling: each size is n at the smallest processor count, and at p processors the size with p/p0 times the "
                 "work (the problem's work model: n·p/p0 for a scan, n·√(p/p0) for the stencil); with --threads, --sms or --gpus")
      ->type_name("SIZES");
  app.add_option("--gpus", o.gpus,
                 "GPUs of every multi-GPU variant, a processor axis: 1,2 (the same as --param launch.gpus=LIST; at most the devices there are)");
  app.add_option("--sms", o.sms,
                 "streaming multiprocessors of every single-GPU CUDA variant, a processor axis on one GPU through CUDA green contexts: "
                 "8..128*2, 132 (the same as --param launch.sms=LIST; counts the device can split off)");
  o.measure.add_to(app);
  app.add_option("--processes", o.processes,
                 "which points share a worker process: point (each its own), track (a variant's sizes one process while they go well), "
                 "gpu-track (so for the variants that use a GPU, point for the rest) or auto (default: gpu-track with --budget, point "
                 "otherwise)");
  app.add_option("--db", common.db, "results database")->capture_default_str();
  o.out.add_to(app);
  o.cache.add_to(app, true);
  app.add_option("--shard", o.shard, "run part I of N of the plan (I from 0) into its own database: I/N, or auto / auto/N inside a Slurm array task")
      ->type_name("I/N");
  app.add_option("--costs-from", o.costs_from,
                 "with --shard: balance the parts by the times this database's points took (the same file for every task)");
  app.add_option("--resume", o.resume, "continue an interrupted experiment (default: the newest unfinished)")->expected(0, 1);
  app.add_option("--rerun-noisy", o.rerun_noisy,
                 "measure again, in fresh processes, the points of an experiment (default: the newest) that ran on a busy machine "
                 "or lie off both neighbours; the new measurements replace them in tables and fits")
      ->expected(0, 1)
      ->type_name("[EXPERIMENT]");
}

}  // namespace

plan sharded_run_plan(const std::vector<std::string>& args, int parts) {
  CLI::App app("ema run");
  run_options o;
  common_options common;
  register_run_options(app, o, common);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw usage_error(fmt::format("the plan's arguments ({}): {}", fmt::join(args, " "), e.what()));
  }
  for (const char* own : {"--db", "--shard", "--resume", "--rerun-noisy"})
    if (app.count(own)) throw usage_error(fmt::format("the plan's arguments give {}: ema slurm sets it for each task", own));
  for (const auto& out : o.out.paths())
    if (out.path != "-")
      throw usage_error(
          fmt::format("the plan's arguments give {}: every task would write it; export from the merged database instead "
                      "(ema show --db RESULTS/merged.db {} FILE)",
                      out.option, out.option));
  auto p = plan_of(o);
  const auto most = p.calibrated ? p.calibrated->tracks.size() : p.points.size();
  if (static_cast<std::size_t>(parts) > most)
    throw usage_error(fmt::format("--tasks {}: the plan has {} {}{}, one task each at most; give --tasks {} or fewer", parts, most,
                                  p.calibrated ? "track" : "point", most == 1 ? "" : "s", most));
  auto first = p;
  const auto costs = o.costs_from ? costs_from(*o.costs_from) : point_costs{};  // read here too: refused before any task runs
  apply_shard(first, {0, parts}, &costs);
  return p;
}

action add_run(CLI::App& app, common_options& common) {
  auto o = std::make_shared<run_options>();
  register_run_options(app, *o, common);
  return [o, &app, &common] {
    o->resume_flag = app.count("--resume") > 0;
    o->rerun_flag = app.count("--rerun-noisy") > 0;
    o->db_given = app.count("--db") > 0;
    return run(*o, common);
  };
}

}  // namespace ema::cli
