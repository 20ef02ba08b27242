// The two scripts `ema slurm` writes (docs/cli/slurm.md, docs/cluster.md): a job array whose task
// I runs shard I of one plan, and the merge job after it. Nothing a user passes becomes script
// text:
// - every value that lands in an `#SBATCH` line is checked against Slurm's grammar for its field
//   (names, times, counts, feature expressions) and written as one literal word of that line
//   (sbatch's directive parser: whitespace splits, quotes group, a backslash escapes, `#` ends it);
// - the plan's arguments go to a file (plan.args, one a line) that the array script reads as data
//   (`mapfile`), never as shell text; the results folder and ema's path are single-quoted words;
// - a control character (a newline, a tab, an escape) anywhere is refused: it could end a line of
//   the script or of a directive.
// Each task runs in a private folder of its node's disk (`mktemp -d`: mode 0700, a fresh name),
// starts from the copy of its shard in the results folder only where that copy is the user's own
// regular file, and copies its database back under a fresh name, renamed into place.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ema {

/// What `ema slurm` is asked for besides the plan.
struct slurm_request {
  int tasks = 0;
  std::optional<std::string> partition, time, gpus_per_task, account, qos, constraint;
  std::vector<std::string> modules, sbatch;
  bool shared = false;
};

/// Where the scripts run: the results folder (absolute), ema's path and the plan's tag.
struct slurm_job {
  std::string folder, ema, tag;
};

/// usage_error naming `what` where `value` holds a control character (C0, DEL or C1).
void refuse_control_characters(std::string_view what, std::string_view value);

/// Checks every value of `r` for its field (usage_error naming the option and what is allowed).
void check_slurm_request(const slurm_request& r);

/// Checks the results folder for the scripts: no control character, and no backslash (Slurm's log
/// file patterns take one as "replace nothing", so every task would share one log).
void check_results_folder(const std::string& folder);

/// `value` as one argument of an `#SBATCH` line, read back by sbatch exactly as given.
std::string directive_word(std::string_view value);

/// The plan's arguments as the array script reads them: one a line.
std::string plan_args_text(const std::vector<std::string>& args);

std::string array_script(const slurm_request& r, const slurm_job& job);
std::string merge_script(const slurm_request& r, const slurm_job& job);

}  // namespace ema
