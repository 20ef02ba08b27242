// Splitting one plan over several tasks (`ema run --shard i/N`, Slurm job arrays; docs/cli/run.md,
// docs/cluster.md): every task plans the same sweep from the same command, takes its own part and
// writes its own database; `ema merge` joins them (store/merge.hpp).
// - The parts are disjoint and together the whole plan; the split depends only on the plan (its
//   points and the problems' work models), so every task computes the same one, run after run.
// - Balanced by predicted cost: each point costs its problem's work model at its size (the larger
//   of its operations and bytes) plus a fixed cost for the point's own start (a process, an input,
//   the reference), and the points, the dearest first, go to the least loaded part (longest
//   processing time first, ties to the lower ordinal and the lower part). A calibrated plan
//   (`--budget`) splits its tracks instead, track k to part k mod N, each part with the whole budget.
// - plan_digest names the plan apart from where it runs (not its notes or input cache folder), so
//   `ema merge` refuses the shards of different plans.
#pragma once

#include <cstdlib>
#include <functional>
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
shard_choice parse_shard(std::string_view text, const std::function<const char*(const char*)>& env = [](const char* name) {
  return static_cast<const char*>(std::getenv(name));
});

/// A hex digest of what the plan measures: its points, policies, seed, calibration and program.
std::string plan_digest(const plan& p);

/// For each point of `p` (by ordinal), the part of `count` that runs it.
std::vector<int> split_points(const plan& p, int count);

/// Makes `p` the part `c.index` of `c.count`: records the shard (digest of the whole plan, its
/// points) and, for a calibrated plan, keeps only its tracks. usage_error when the part would be
/// empty (more parts than points or tracks).
void apply_shard(plan& p, const shard_choice& c);

}  // namespace ema
