// The subcommands of `ema`. Each registers its options on the CLI11 app and returns the function
// that runs it once the command line has been parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "runner/plan.hpp"
#include <vector>

#include "report/view.hpp"
#include "store/database.hpp"

namespace ema::cli {

using action = std::function<int()>;

/// Options every command that touches the database shares.
struct common_options {
  std::string db = "ema.db";
  std::string command_line;  ///< as typed, stored with experiments

  /// The database's path for a command ema prints to be pasted: empty for the default (the
  /// command then needs no --db).
  std::string db_to_print() const { return db == "ema.db" ? std::string() : db; }
};

action add_list(CLI::App& app);
action add_probe(CLI::App& app, common_options& common);
action add_run(CLI::App& app, common_options& common);
action add_exec(CLI::App& app, common_options& common);
action add_merge(CLI::App& app, common_options& common);
action add_slurm(CLI::App& app, common_options& common);
/// The plan `ema run ARGS` would make (without opening a cache or a database), checked to split
/// into `parts` shards; usage_error naming what is wrong, also for --db, --shard or --resume in ARGS.
plan sharded_run_plan(const std::vector<std::string>& args, int parts);
action add_show(CLI::App& app, common_options& common);
action add_fit(CLI::App& app, common_options& common);
action add_report(CLI::App& app, common_options& common);
action add_compare(CLI::App& app, common_options& common);

/// The path of the running executable (for spawning workers).
std::string self_executable();

/// The experiment a command names, or the newest one, as reports see it; usage_error when the
/// database has no such experiment.
experiment_view chosen_experiment(database& db, const std::optional<std::int64_t>& id);

/// Prints report text on standard output, every control character (an escape sequence stored in a
/// reason or a path) made visible (core/text.hpp terminal_safe).
void print_text(const std::string& text);

/// "a,b,,c" -> {"a", "b", "c"}.
std::vector<std::string> split_commas(const std::string& s);

}  // namespace ema::cli
