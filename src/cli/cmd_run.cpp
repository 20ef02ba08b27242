// `ema run`: builds a plan of registered problems and variants (fixed sizes, or sizes calibrated
// to a time budget), records an experiment, sweeps it point by point in child processes, then
// prints and exports the tables. `--resume` continues an interrupted experiment.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

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

namespace ema::cli {
namespace {

struct run_options {
  std::vector<std::string> problems;
  bool all = false;
  std::optional<std::string> variants;
  std::optional<std::string> sizes;
  std::vector<std::string> params;
  measurement_options measure;
  output_options out;
  cache_options cache;
  std::optional<std::string> resume;
  bool resume_flag = false;
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
  std::string folder = fmt::format("{}/ema-shard-{}-{}-of-{}.XXXXXX", tmp && *tmp ? tmp : "/tmp", p.shard->digest.substr(0, 12),
                                   p.shard->index, p.shard->count);
  if (!::mkdtemp(folder.data()))
    throw usage_error(fmt::format("cannot make a folder for shard {}/{} under {}: {}; give its database with --db", p.shard->index,
                                  p.shard->count, tmp && *tmp ? tmp : "/tmp", std::strerror(errno)));
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

int resume(const run_options& o, const common_options& common) {
  if (!o.problems.empty() || o.all) throw usage_error("--resume continues a stored plan; give no problem with it");
  if (o.shard)
    throw usage_error("--resume continues a stored experiment, a shard's included; give no --shard with it (or run the shard's own "
                      "command again: it finishes its part)");
  check_outputs(common.db, o.out.paths());
  auto db = database::open_write(common.db);
  std::optional<experiment_record> e;
  if (o.resume && !o.resume->empty()) {
    std::int64_t id = 0;
    try {
      id = std::stoll(*o.resume);
    } catch (...) {
      throw usage_error(fmt::format("--resume takes an experiment number, got '{}'", *o.resume));
    }
    e = db.experiment(id);
    if (!e) throw usage_error(fmt::format("{} has no experiment {}", common.db, id));
  } else {
    e = db.latest_experiment(true);
    if (!e) throw usage_error(fmt::format("{} has no unfinished experiment to resume", common.db));
  }
  if (e->state == "finished") throw usage_error(fmt::format("experiment {} is already finished", e->id));
  auto outputs = o.out.paths();  // the stored plan's output files too, before it is marked running again
  for (auto& x : parameter_outputs(plan::from_json(e->plan))) outputs.push_back(std::move(x));
  check_outputs(common.db, outputs);
  auto r = reopen_experiment(db, e->id);
  fmt::print(stderr, "ema: resuming experiment {} ({} of {} points stored)\n", e->id, db.recorded_ordinals(e->id).size(),
             r.p.points.size());
  return carry_out(db, e->id, r.p, common, o.out);
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
  r.params = o.params;
  o.measure.fill(r);
  auto p = make_plan(r);  // validates everything before the database is touched
  o.measure.apply(p);
  if (p.points.empty() && (!p.calibrated || p.calibrated->tracks.empty())) throw usage_error("the plan has no points");
  return p;
}

int run(const run_options& o, const common_options& common) {
  if (o.resume_flag) return resume(o, common);
  auto p = plan_of(o);
  if (o.costs_from && !o.shard) throw usage_error("--costs-from balances the parts of a sharded plan; give it with --shard");
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
      throw usage_error(fmt::format("--db {} is the --costs-from database (or one of its files): give the shard a database of its own",
                                    common.db));
  }
  auto outputs = o.out.paths();
  for (auto& x : parameter_outputs(p)) outputs.push_back(std::move(x));
  check_outputs(touched, outputs);
  common_options where = common;
  if (p.shard && !o.db_given) {
    where.db = local_shard_database(p);
    fmt::print(stderr, "ema: shard {}/{} writes to {} (this node's disk, a folder of this run's own: copy it off when the task ends, "
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
  app.add_option("--param,-p", o.params, "problem parameter key=value (repeatable)")->allow_extra_args(false);
  o.measure.add_to(app);
  app.add_option("--db", common.db, "results database")->capture_default_str();
  o.out.add_to(app);
  o.cache.add_to(app, true);
  app.add_option("--shard", o.shard,
                 "run part I of N of the plan (I from 0) into its own database: I/N, or auto / auto/N inside a Slurm array task")
      ->type_name("I/N");
  app.add_option("--costs-from", o.costs_from,
                 "with --shard: balance the parts by the times this database's points took (the same file for every task)");
  app.add_option("--resume", o.resume, "continue an interrupted experiment (default: the newest unfinished)")->expected(0, 1);
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
  for (const char* own : {"--db", "--shard", "--resume"})
    if (app.count(own)) throw usage_error(fmt::format("the plan's arguments give {}: ema slurm sets it for each task", own));
  for (const auto& out : o.out.paths())
    if (out.path != "-") throw usage_error(fmt::format("the plan's arguments give {}: every task would write it; export from the merged database instead "
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
    o->db_given = app.count("--db") > 0;
    return run(*o, common);
  };
}

}  // namespace ema::cli
