// What `ema run`, `ema exec` and `ema fit --run-tie-breaker` share: the options of measurement
// and output, and carrying a plan out as a stored experiment (the machine's ceilings and idle
// power first, Ctrl-C handled, the tables printed and exported at the end).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "runner/plan.hpp"
#include "store/database.hpp"

namespace ema::cli {

/// --reps, --min-reps, ..., --timeout, --energy-window, --no-energy, --seed, --instances, and the
/// calibration's --budget, --start, --max-size and --settle-share.
struct measurement_options {
  std::optional<int> reps, min_reps, max_reps, warmup;
  std::optional<double> min_time, max_time, rse, timeout, energy_window, settle_share;
  std::optional<std::string> budget;
  std::optional<std::string> start, max_size;  ///< sizes (2^10, 1e6, 4096), read by fill
  bool no_energy = false;
  std::string seed_text = "1";  ///< checked by fill (CLI11 would read -1 as 2^64 - 1)
  int instances = 1;
  int rounds = 1;                    ///< --rounds, checked by fill
  std::optional<std::string> order;  ///< --order, read by fill

  void add_to(CLI::App& app);
  /// Validates (usage_error) and fills the request's seed, instances and calibration.
  void fill(plan_request& r) const;
  /// Applies the repetition, timeout and energy settings to a plan.
  void apply(plan& p) const;
};

/// --cache and --cache-cap (`ema exec`: the generator's inputs; `ema run`: the problems that keep
/// built inputs, inputs/graph_cache.hpp), and for `ema run` --no-cache.
struct cache_options {
  std::optional<std::string> dir;
  std::string cap = "2G";
  bool off = false;

  void add_to(CLI::App& app, bool with_off);
  /// The cache's folder, opened (made, marked) and absolute; usage_error when it is the database,
  /// not UTF-8, or holds files that are not ema's.
  std::string open(const std::string& db) const;
  /// --cache-cap in bytes; usage_error when it is not a size such as 500M or 2G.
  double cap_bytes() const;
};

/// --json, --csv, --md, --stats, --quiet.
struct output_options {
  std::optional<std::string> json, csv, md;
  bool quiet = false, stats = false;

  void add_to(CLI::App& app);
  /// The files given (cli/outputs.hpp checks them before a sweep starts).
  std::vector<output_path> paths() const;
};

/// Runs the plan: records a new experiment (experiment_id 0, claimed at once) or continues
/// `experiment_id` (which the caller has claimed: reopen_experiment), sweeps, marks it finished or
/// interrupted, prints and exports the tables. Returns the exit code.
int carry_out(database& db, std::int64_t experiment_id, plan& p, const common_options& common, const output_options& out);

/// An existing experiment opened for more points: claimed by this process, its stored plan read
/// back, marked running again.
struct reopened_experiment {
  experiment_record record;
  plan p;
  experiment_claim claim;
};
/// database_error when another process runs it or its stored plan is malformed.
reopened_experiment reopen_experiment(database& db, std::int64_t experiment_id);

}  // namespace ema::cli
