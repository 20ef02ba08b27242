// Splitting one plan over several tasks (`ema run --shard i/N`, Slurm job arrays; docs/cli/run.md,
// docs/cluster.md): every task plans the same sweep from the same command, takes its own part and
// writes its own database; `ema merge` joins them (runner/merge.hpp).
// - The parts are disjoint and together the whole plan; the split depends only on the plan (its
//   points and the problems' work models), so every task computes the same one, run after run.
// - Balanced by predicted cost: each point costs its problem's work model at its size (the larger
//   of its operations and bytes) plus a fixed cost for the point's own start (a process, an input,
//   the reference), and the points, the dearest first, go to the least loaded part (longest
//   processing time first, ties to the lower ordinal and the lower part); where a previous run's
//   database is given (`--costs-from`, the same file for every task), the seconds its points took
//   instead (the rest scaled to match). The basis is recorded with the shard, and `ema merge`
//   refuses shards split on different bases (their parts would overlap). A calibrated plan
//   (`--budget`) splits its tracks instead, track k to part k mod N, each part with the whole budget.
// - A shard stores only its part: its own points, each with its ordinal in the whole plan (or a
//   calibrated plan's own tracks), and the whole plan's digest and number of points; a plan of a
//   million points split a hundred ways stores a hundredth of it in each shard.
// - plan_digest names the plan apart from where it runs (not its notes or input cache folder), so
//   `ema merge` refuses the shards of different plans.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runner/plan.hpp"

namespace ema {

struct shard_choice {
  int index = 0, count = 1;  ///< 0-based part of `count`
};

/// Reads `--shard`: "I/N" (0 <= I < N), "auto" (I and N from a Slurm array task: SLURM_ARRAY_TASK_ID
/// and SLURM_ARRAY_TASK_COUNT, an array numbered from 0) or "auto/N" (I from SLURM_ARRAY_TASK_ID, N
/// given: a resubmission of some of the tasks). `env` looks a variable up (nullptr: unset).
/// usage_error naming what is wrong.
shard_choice parse_shard(
    std::string_view text,
    const std::function<const char*(const char*)>& env = [](const char* name) { return static_cast<const char*>(std::getenv(name)); });

/// Seconds a point took in a previous run (its `point_wall`), by what it measures: the
/// better prediction of its cost (`--costs-from`). Keyed by cost_key.
using point_costs = std::map<std::string, double>;
std::string cost_key(const std::string& problem, const std::string& variant, std::uint64_t n, const std::string& params_json);
/// The points that ran ok in every experiment of the database at `path` (the largest time where
/// several did); database_error or usage_error when it cannot be read.
point_costs costs_from(const std::string& path);

/// A hex digest of what the plan measures: its points, policies, seed, calibration and program;
/// not the points added while it ran (a calibrated track's sizes, a tie-breaker: those with a phase).
std::string plan_digest(const plan& p);

/// The digest of the plan a stored experiment belongs to: the one its merge or shard recorded,
/// checked against the plan it stores (database_error where they disagree: the database was
/// changed by hand or is damaged), else the plan's own.
std::string stored_plan_digest(const plan& p);

/// For each point of `p` (by ordinal), the part of `count` that runs it. With `costs`, a point
/// found there costs its seconds, the others their work model scaled by the median ratio of
/// seconds to work model over the points found.
std::vector<int> split_points(const plan& p, int count, const point_costs* costs = nullptr);

/// Makes `p` the part `c.index` of `c.count`: records the shard (the whole plan's digest and size)
/// and keeps only its own points, or a calibrated plan's own tracks. usage_error when the part would
/// be empty (more parts than points or tracks).
void apply_shard(plan& p, const shard_choice& c, const point_costs* costs = nullptr);

}  // namespace ema
