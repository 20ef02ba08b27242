// `ema slurm RUN-ARGS... --tasks N [...]`: a sweep as a Slurm job array of N shard tasks (each
// `ema run RUN-ARGS --shard auto/N` on its node's disk, its database copied to a results folder
// when it ends, however it ends) and a merge job after them (`--dependency=afterany`); prints the
// two scripts, and with --submit submits them. `ema slurm --status DIR|JOB` summarises the shards'
// databases. docs/cli/slurm.md, docs/cluster.md.
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <sys/wait.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/errors.hpp"
#include "core/text.hpp"
#include "runner/merge.hpp"
#include "runner/shard.hpp"
#include "store/database.hpp"

namespace ema::cli {
namespace {

namespace fs = std::filesystem;

struct slurm_options {
  int tasks = 0;
  std::optional<std::string> partition, time, gpus_per_task, account, qos, constraint, results, status;
  std::vector<std::string> modules, sbatch;
  bool submit = false, shared = false;
};

std::string quoted(const std::string& s) { return shell_word(s); }

std::string directives(const slurm_options& o, bool array_job) {
  std::string d;
  auto line = [&](const std::string& option) { d += "#SBATCH " + option + "\n"; };
  if (o.partition) line("--partition=" + *o.partition);
  if (o.time) line("--time=" + *o.time);
  if (o.account) line("--account=" + *o.account);
  if (o.qos) line("--qos=" + *o.qos);
  if (array_job) {
    if (o.constraint) line("--constraint=" + *o.constraint);
    if (o.gpus_per_task) line("--gpus-per-task=" + *o.gpus_per_task);
    if (!o.shared) line("--exclusive");  // timing wants the node to itself
    for (const auto& x : o.sbatch) line(x);
  }
  return d;
}

std::string modules(const slurm_options& o) {
  std::string m;
  for (const auto& x : o.modules) m += "module load " + quoted(x) + "\n";
  return m;
}

std::string array_script(const slurm_options& o, const std::string& ema, const std::vector<std::string>& args, const std::string& dir,
                         const std::string& digest, const std::string& written_by) {
  std::string run;
  for (const auto& a : args) run += " " + quoted(a);
  return fmt::format(R"SH(#!/bin/bash
# ema slurm: task I of a {n}-task array runs shard I of one plan (docs/cluster.md).
# Written by: {by}
#SBATCH --job-name=ema-{tag}
#SBATCH --array=0-{last}
#SBATCH --output={dir}/logs/shard-%a.out
{directives}set -u
{modules}results={dir}
task=$SLURM_ARRAY_TASK_ID
# The shard's database lives on this node's disk (SQLite is not safe over a network file system);
# a resubmitted task continues from the copy its last attempt left. copy FROM TO: under a
# temporary name, then renamed. The journal travels with its database, or a stale one is removed.
copy() {{ cp -f "$1" "$2.tmp" && mv -f "$2.tmp" "$2"; }}
local_db="${{TMPDIR:-/tmp}}/ema-{tag}-shard-$task-of-{n}.db"
mkdir -p "$(dirname "$local_db")"
if [ -f "$results/shard-$task.db" ]; then
  rm -f "$local_db-journal"
  copy "$results/shard-$task.db" "$local_db"
  if [ -f "$results/shard-$task.db-journal" ]; then copy "$results/shard-$task.db-journal" "$local_db-journal"; fi
fi
{ema} run{run} --shard auto/{n} --db "$local_db" --quiet &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' TERM INT   # scancel, a time limit: ema stores what it finished
wait $pid; rc=$?
while kill -0 $pid 2>/dev/null; do wait $pid; rc=$?; done
# Back to the results folder; a task that made no database (ema refused to start) leaves the copy alone.
if [ -f "$local_db" ]; then
  rm -f "$results/shard-$task.db-journal"
  copy "$local_db" "$results/shard-$task.db"
  if [ -f "$local_db-journal" ]; then copy "$local_db-journal" "$results/shard-$task.db-journal"; fi
fi
exit $rc
)SH",
                     fmt::arg("n", o.tasks), fmt::arg("last", o.tasks - 1), fmt::arg("by", written_by), fmt::arg("tag", digest.substr(0, 12)),
                     fmt::arg("dir", quoted(dir)), fmt::arg("directives", directives(o, true)), fmt::arg("modules", modules(o)),
                     fmt::arg("ema", quoted(ema)), fmt::arg("run", run));
}

std::string merge_script(const slurm_options& o, const std::string& ema, const std::string& dir, const std::string& digest) {
  return fmt::format(R"SH(#!/bin/bash
# ema slurm: after the array (--dependency=afterany), joins its shards; lists any missing as an --array= list.
#SBATCH --job-name=ema-merge-{tag}
#SBATCH --output={dir}/logs/merge.out
{directives}set -u
{modules}results={dir}
rm -f "$results/merged.db"
{ema} merge "$results/merged.db" "$results"/shard-*.db --quiet
)SH",
                     fmt::arg("tag", digest.substr(0, 12)), fmt::arg("dir", quoted(dir)), fmt::arg("directives", directives(o, false)),
                     fmt::arg("modules", modules(o)), fmt::arg("ema", quoted(ema)));
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
  if (!f) throw usage_error(fmt::format("cannot write {}", path));
  fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add);
}

// Runs a command (its words quoted for the shell): its exit status (as pclose gives it, -1 when it
// cannot start) and its standard output, with its standard error where `with_errors`.
struct command_result {
  int status = -1;
  std::string out;
};
command_result run_command(const std::vector<std::string>& argv, bool with_errors) {
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + quoted(a);
  command_result r;
  FILE* p = popen((cmd + (with_errors ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (!p) return r;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) r.out += buf;
  r.status = pclose(p);
  return r;
}

// sbatch's job id (--parsable prints "ID" or "ID;CLUSTER").
std::string submit(const std::vector<std::string>& argv) {
  const auto r = run_command(argv, true);
  const auto what = fmt::format("{}", fmt::join(argv, " "));
  if (r.status != 0) {
    if (r.status == -1 || (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127))
      throw usage_error("sbatch is not on the PATH: submit from a Slurm login node, or run the scripts by hand");
    throw usage_error(fmt::format("{} failed: {}", what, r.out));
  }
  const auto id = r.out.substr(0, r.out.find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw usage_error(fmt::format("{} printed no job id: {}", what, r.out));
  return id;
}

// The results folder of a job id: the folder of the script Slurm still knows the job by
// (`scontrol show job`), else the ema-slurm-* folder under the current one whose `jobs` names it.
std::string folder_of(const std::string& what) {
  if (fs::is_directory(what)) return what;
  if (!what.empty() && what.find_first_not_of("0123456789") == std::string::npos) {
    const auto shown = run_command({"scontrol", "show", "job", "-o", what}, false);
    const auto text = shown.status == 0 ? shown.out : std::string();
    if (const auto at = text.find("Command="); at != std::string::npos) {
      const auto command = text.substr(at + 8, text.find_first_of(" \n", at) - at - 8);
      const auto dir = fs::path(command).parent_path();
      if (fs::exists(dir / "array.sbatch")) return dir.string();
    }
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(".", ec)) {
    if (!entry.is_directory() || entry.path().filename().string().rfind("ema-slurm-", 0) != 0) continue;
    std::ifstream f(entry.path() / "jobs");
    std::stringstream text;
    text << f.rdbuf();
    const auto j = nlohmann::json::parse(text.str(), nullptr, false);
    if (j.is_object() && (j.value("array", "") == what || j.value("merge", "") == what)) return entry.path().string();
  }
  throw usage_error(fmt::format("--status {}: neither a results folder nor a job that `ema slurm --submit` started here", what));
}

int status(const std::string& what) {
  const auto dir = folder_of(what);
  std::map<int, std::string> shards;
  int count = 0, planned = 0, done = 0;
  std::vector<int> unfinished;
  std::string digest;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.rfind("shard-", 0) != 0 || entry.path().extension() != ".db") continue;
    auto db = database::open_read(entry.path().string());
    for (const auto& e : db.experiments()) {
      const auto sh = e.plan.value("shard", nlohmann::json::object());
      if (!sh.contains("index")) continue;
      if (!digest.empty() && sh.value("digest", "") != digest) {
        fmt::print("{}: a shard of another plan, left out of this summary\n", entry.path().string());
        continue;
      }
      digest = sh.value("digest", "");
      count = sh.value("count", 0);
      const int index = sh.value("index", 0);
      const int mine = static_cast<int>(sh.value("ordinals", std::vector<int>{}).size());
      const int stored = static_cast<int>(db.recorded_ordinals(e.id).size());
      planned += mine;
      done += stored;
      shards[index] = fmt::format("shard {}: {} of {} points, {}", index, stored, mine, e.state);
      if (e.state != "finished") unfinished.push_back(index);
    }
  }
  if (shards.empty()) {
    fmt::print("{}: no shard has finished an attempt yet (`squeue --me` shows the running tasks)\n", dir);
    return exit_code::points_failed;
  }
  for (int i = 0; i < count; ++i)
    if (!shards.count(i)) unfinished.push_back(i);
  for (const auto& [i, line] : shards) fmt::print("{}\n", line);
  fmt::print("{} of {} shards finished; {} points stored of the {} the present shards plan\n", count - static_cast<int>(unfinished.size()),
             count, done, planned);
  if (!unfinished.empty())
    fmt::print("not finished (or not started): --array={} (running tasks copy their database when they end; `squeue --me` shows them)\n",
               array_list(unfinished));
  if (fs::exists(fs::path(dir) / "merged.db")) fmt::print("merged: {}\n", (fs::path(dir) / "merged.db").string());
  return unfinished.empty() ? exit_code::ok : exit_code::points_failed;
}

int slurm(const slurm_options& o, const std::vector<std::string>& args, const common_options& common) {
  if (o.status) {
    if (!args.empty()) throw usage_error("--status reads the shards of a submitted sweep; give no plan with it");
    return status(*o.status);
  }
  if (args.empty()) throw usage_error("ema slurm needs the plan: the arguments `ema run` would take, e.g. ema slurm search --sizes 2^10..2^24 --tasks 4");
  if (o.tasks < 1 || o.tasks > 100000) throw usage_error(fmt::format("--tasks must be from 1 to 100000, got {}", o.tasks));
  const auto p = sharded_run_plan(args, o.tasks);
  for (const auto& note : p.notes)  // each task plans on its own node, which may differ from this one
    fmt::print(stderr, "ema: warning: here, {}; each task plans on its node: name --variants so that every task plans the same sweep\n", note);
  const auto digest = plan_digest(p);
  const auto dir = fs::absolute(o.results.value_or("ema-slurm-" + digest.substr(0, 12))).lexically_normal().string();
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "logs", ec);
  if (ec) throw usage_error(fmt::format("cannot make the results folder {}: {}", dir, ec.message()));
  const auto ema = self_executable();
  const auto array = array_script(o, ema, args, dir, digest, common.command_line);
  const auto merge = merge_script(o, ema, dir, digest);
  write_file(dir + "/array.sbatch", array);
  write_file(dir + "/merge.sbatch", merge);
  print_text(fmt::format("# {}/array.sbatch\n{}\n# {}/merge.sbatch\n{}\n", dir, array, dir, merge));
  if (!o.submit) {
    fmt::print(stderr, "{}", terminal_safe(fmt::format(
                                 "ema: {} points in {} tasks; submit with\n  id=$(sbatch --parsable {}/array.sbatch) && sbatch "
                                 "--dependency=afterany:$id {}/merge.sbatch\nor give --submit\n",
                                 p.calibrated ? fmt::format("{} tracks", p.calibrated->tracks.size()) : fmt::format("{}", p.points.size()),
                                 o.tasks, quoted(dir), quoted(dir))));
    return exit_code::ok;
  }
  const auto array_id = submit({"sbatch", "--parsable", dir + "/array.sbatch"});
  const auto merge_id = submit({"sbatch", "--parsable", "--dependency=afterany:" + array_id, dir + "/merge.sbatch"});
  write_file(dir + "/jobs", nlohmann::json{{"array", array_id}, {"merge", merge_id}}.dump() + "\n");
  fmt::print("array job {}, merge job {}; `ema slurm --status {}` shows progress\n", array_id, merge_id, array_id);
  return exit_code::ok;
}

}  // namespace

action add_slurm(CLI::App& app, common_options& common) {
  auto o = std::make_shared<slurm_options>();
  app.allow_extras();
  app.prefix_command(false);
  app.add_option("--tasks", o->tasks, "array tasks, one shard each");
  app.add_option("--partition", o->partition, "#SBATCH --partition");
  app.add_option("--time", o->time, "#SBATCH --time of each task (and of the merge)");
  app.add_option("--gpus-per-task", o->gpus_per_task, "#SBATCH --gpus-per-task");
  app.add_option("--account", o->account, "#SBATCH --account");
  app.add_option("--qos", o->qos, "#SBATCH --qos");
  app.add_option("--constraint", o->constraint, "#SBATCH --constraint (node features)");
  app.add_option("--module", o->modules, "a module to load in each job (repeatable)");
  app.add_option("--sbatch", o->sbatch, "any other sbatch option for the array, as it would follow #SBATCH (repeatable)");
  app.add_flag("--shared", o->shared, "do not ask for exclusive nodes (timings may then disturb each other)");
  app.add_option("--results", o->results, "folder of the scripts, logs, shard copies and merged.db (default ./ema-slurm-PLAN)");
  app.add_flag("--submit", o->submit, "submit the array and the merge job (sbatch) and print their ids");
  app.add_option("--status", o->status, "summarise the shards of a submitted sweep: its results folder or its array job id");
  return [o, &app, &common] { return slurm(*o, app.remaining(), common); };
}

}  // namespace ema::cli
