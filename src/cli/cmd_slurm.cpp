// `ema slurm RUN-ARGS... --tasks N [...]`: a sweep as a Slurm job array of N shard tasks (each
// `ema run RUN-ARGS --shard auto/N` on its node's disk, its database copied to a results folder
// when it ends, however it ends) and a merge job after them (`--dependency=afterany`); prints the
// two scripts, and with --submit submits them. `ema slurm --status DIR|JOB` summarises the shards'
// databases. docs/cli/slurm.md, docs/cluster.md.
#include <algorithm>
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
#include "core/files.hpp"
#include "core/text.hpp"
#include "runner/merge.hpp"
#include "runner/shard.hpp"
#include "runner/slurm_scripts.hpp"
#include "store/database.hpp"

namespace ema::cli {
namespace {

namespace fs = std::filesystem;

struct slurm_options : slurm_request {
  std::optional<std::string> results, status;
  bool submit = false;
};

// Reads a small regular file whole: the `jobs` file of a submitted sweep. Anything else (a pipe, a
// device, a folder, more than `limit` bytes) reads as nothing.
std::string small_file(const fs::path& path, std::size_t limit = 1 << 16) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec)) || fs::file_size(path, ec) > limit || ec) return {};
  std::ifstream f(path, std::ios::binary);
  std::string text(limit + 1, '\0');
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(f.gcount()));
  return text.size() > limit ? std::string() : text;
}

// The shards' databases in a results folder: its regular files named shard-*.db.
std::vector<fs::path> shard_files(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto name = entry.path().filename().string();
    if (name.rfind("shard-", 0) == 0 && entry.path().extension() == ".db" && entry.is_regular_file(ec)) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A results folder that already holds shards of another plan, or of another split of this one,
// would be merged with them: refused, naming one.
void check_no_foreign_shards(const std::string& dir, const std::string& digest, int tasks) {
  for (const auto& path : shard_files(dir)) {
    try {
      auto db = database::open_read(path.string());
      for (const auto& e : db.experiments()) {
        const auto sh = e.plan.value("shard", nlohmann::json::object());
        if (sh.value("digest", "") != digest || sh.value("count", 0) != tasks)
          throw usage_error(fmt::format(
              "--results {} holds {}, a shard of {}: its merge would mix the two; give another --results, or "
              "remove the old shards",
              dir, path.filename().string(),
              sh.value("digest", "") == digest ? fmt::format("this plan split into {} tasks", sh.value("count", 0)) : std::string("another plan")));
      }
    } catch (const database_error& x) {
      throw usage_error(fmt::format("--results {} holds {}, which is not a shard's database ({})", dir, path.filename().string(), x.what()));
    }
  }
}

// Runs a command (its words quoted for the shell): its exit status (as pclose gives it, -1 when it
// cannot start) and its standard output, with its standard error where `with_errors`.
struct command_result {
  int status = -1;
  std::string out;
};
command_result run_command(const std::vector<std::string>& argv, bool with_errors) {
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_word(a);
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
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) throw usage_error(fmt::format("{} printed no job id: {}", what, r.out));
  return id;
}

// The results folder of a job id: the folder of the script Slurm still knows the job by
// (`scontrol show job`), else the ema-slurm-* folder under the current one whose `jobs` names it.
std::string folder_of(const std::string& what) {
  std::error_code ec;
  if (fs::is_directory(what, ec)) return what;
  if (!what.empty() && what.size() <= 20 && what.find_first_not_of("0123456789") == std::string::npos) {
    const auto shown = run_command({"scontrol", "show", "job", "-o", what}, false);
    const auto text = shown.status == 0 ? shown.out : std::string();
    if (const auto at = text.find("Command="); at != std::string::npos) {
      const auto command = text.substr(at + 8, text.find_first_of(" \n", at) - at - 8);
      const auto dir = fs::path(command).parent_path();
      if (fs::is_regular_file(dir / "array.sbatch", ec)) return dir.string();
    }
  }
  for (const auto& entry : fs::directory_iterator(".", ec)) {
    if (!entry.is_directory(ec) || entry.path().filename().string().rfind("ema-slurm-", 0) != 0) continue;
    const auto j = parse_json(small_file(entry.path() / "jobs"));
    if (j.is_object() && (j.value("array", "") == what || j.value("merge", "") == what)) return entry.path().string();
  }
  throw usage_error(fmt::format("--status {}: neither a results folder nor a job that `ema slurm --submit` started here", one_line(what)));
}

int status(const std::string& what) {
  const auto dir = folder_of(what);
  std::map<int, std::string> shards;
  int count = 0, planned = 0, done = 0;
  std::vector<int> unfinished;
  std::string digest;
  for (const auto& path : shard_files(dir)) {
    auto db = database::open_read(path.string());
    for (const auto& e : db.experiments()) {
      const auto sh = e.plan.value("shard", nlohmann::json::object());
      if (!sh.contains("index")) continue;
      if (!digest.empty() && sh.value("digest", "") != digest) {
        fmt::print("{}: a shard of another plan, left out of this summary\n", one_line(path.string()));
        continue;
      }
      digest = sh.value("digest", "");
      count = sh.value("count", 0);
      const int index = sh.value("index", 0);
      // Its own points: those it stores (shards made before stored the whole plan and list theirs).
      int mine = 0;
      if (sh.contains("size")) {
        for (const auto& pt : e.plan.value("points", nlohmann::json::array())) mine += pt.is_object() && !pt.contains("phase");
      } else {
        mine = static_cast<int>(sh.value("ordinals", std::vector<int>{}).size());
      }
      const int stored = static_cast<int>(db.recorded_ordinals(e.id).size());
      planned += mine;
      done += stored;
      shards[index] = fmt::format("shard {}: {} of {} points, {}", index, stored, mine, e.state);
      if (e.state != "finished") unfinished.push_back(index);
    }
  }
  if (shards.empty()) {
    fmt::print("{}: no shard has finished an attempt yet (`squeue --me` shows the running tasks)\n", one_line(dir));
    return exit_code::points_failed;
  }
  for (int i = 0; i < count; ++i)
    if (!shards.count(i)) unfinished.push_back(i);
  for (const auto& [i, line] : shards) fmt::print("{}\n", line);
  fmt::print("{} of {} shards finished; {} points stored of the {} the present shards plan\n", count - static_cast<int>(unfinished.size()), count,
             done, planned);
  if (!unfinished.empty())
    fmt::print("not finished (or not started): --array={} (running tasks copy their database when they end; `squeue --me` shows them)\n",
               array_list(unfinished));
  if (fs::exists(fs::path(dir) / "merged.db")) fmt::print("merged: {}\n", one_line((fs::path(dir) / "merged.db").string()));
  return unfinished.empty() ? exit_code::ok : exit_code::points_failed;
}

int slurm(const slurm_options& o, const std::vector<std::string>& args) {
  if (o.status) {
    if (!args.empty()) throw usage_error("--status reads the shards of a submitted sweep; give no plan with it");
    return status(*o.status);
  }
  if (args.empty())
    throw usage_error("ema slurm needs the plan: the arguments `ema run` would take, e.g. ema slurm search --sizes 2^10..2^24 --tasks 4");
  if (o.tasks < 1 || o.tasks > 100000) throw usage_error(fmt::format("--tasks must be from 1 to 100000, got {}", o.tasks));
  // Nothing a user passes may become script text: every value checked before anything is written.
  check_slurm_request(o);
  for (const auto& a : args) refuse_control_characters("the plan's argument", a);
  if (o.results && o.results->empty()) throw usage_error("--results is empty: give a folder");
  const auto p = sharded_run_plan(args, o.tasks);
  for (const auto& note : p.notes)  // each task plans on its own node, which may differ from this one
    fmt::print(stderr, "ema: warning: here, {}; each task plans on its node: name --variants so that every task plans the same sweep\n", note);
  const auto digest = plan_digest(p);
  slurm_job job;
  job.tag = digest.substr(0, 12);
  job.folder = fs::absolute(o.results.value_or("ema-slurm-" + job.tag)).lexically_normal().string();
  check_results_folder(job.folder);  // as given, and the current folder's name the absolute form adds
  job.ema = self_executable();
  refuse_control_characters("ema's own path", job.ema);
  std::error_code ec;
  fs::create_directories(fs::path(job.folder) / "logs", ec);
  if (ec) throw usage_error(fmt::format("cannot make the results folder {}: {}", one_line(job.folder), ec.message()));
  check_no_foreign_shards(job.folder, digest, o.tasks);
  const auto array = array_script(o, job);
  const auto merge = merge_script(o, job);
  // Each written whole and renamed into place: a link there is replaced, never written through.
  replace_file(job.folder + "/plan.args", plan_args_text(args), 0644);
  replace_file(job.folder + "/array.sbatch", array, 0755);
  replace_file(job.folder + "/merge.sbatch", merge, 0755);
  print_text(fmt::format("# {}/array.sbatch\n{}\n# {}/merge.sbatch\n{}\n", job.folder, array, job.folder, merge));
  const auto dir = shell_word(job.folder);
  if (!o.submit) {
    fmt::print(stderr, "{}",
               terminal_safe(fmt::format("ema: {} points in {} tasks; submit with\n  id=$(sbatch --parsable {}/array.sbatch) && sbatch "
                                         "--dependency=afterany:$id {}/merge.sbatch\nor give --submit\n",
                                         p.calibrated ? fmt::format("{} tracks", p.calibrated->tracks.size()) : fmt::format("{}", p.points.size()),
                                         o.tasks, dir, dir)));
    return exit_code::ok;
  }
  const auto array_id = submit({"sbatch", "--parsable", job.folder + "/array.sbatch"});
  const auto merge_id = submit({"sbatch", "--parsable", "--dependency=afterany:" + array_id, job.folder + "/merge.sbatch"});
  try {
    replace_file(job.folder + "/jobs", nlohmann::json{{"array", array_id}, {"merge", merge_id}}.dump() + "\n");
  } catch (const output_error& x) {
    fmt::print(stderr, "ema: warning: {} (the jobs were submitted: array {}, merge {})\n", x.what(), array_id, merge_id);
  }
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
  app.add_option("--sbatch", o->sbatch, "any other sbatch option for the array, in its long form: --sbatch=--mem=8G (repeatable)");
  app.add_flag("--shared", o->shared, "do not ask for exclusive nodes (timings may then disturb each other)");
  app.add_option("--results", o->results, "folder of the scripts, logs, shard copies and merged.db (default ./ema-slurm-PLAN)");
  app.add_flag("--submit", o->submit, "submit the array and the merge job (sbatch) and print their ids");
  app.add_option("--status", o->status, "summarise the shards of a submitted sweep: its results folder or its array job id");
  return [o, &app, &common] { return slurm(*o, app.remaining()); };
}

}  // namespace ema::cli
