// `ema merge`: joins the shards of one plan (`ema run --shard i/N`, runner/shard.hpp), each in its
// own database, into one experiment of a database (docs/cli/merge.md, docs/cluster.md).
// - Every experiment of every input is read; all must be of one plan (the digest recorded when
//   the shard was made, or the plan's own for an experiment run whole), else nothing is written.
// - Every point once: a point is known by what it measures (problem, variant, n, parameters,
//   seed, instance, phase), so the same shard given twice, or two shards that both hold a point,
//   keep the first copy in the order given, and the merge says which it dropped.
// - Each point keeps the machine it ran on: its notes gain `merged_from` (database and experiment)
//   and `machine` (its kind: CPU, cores, GPUs; measure/machine.hpp machine_kind), besides the `host`,
//   `slurm_job` and `slurm_task` the sweep recorded; the experiment's machine is the first shard's,
//   with every kind of machine and its probed ceilings under `machines` when there are several.
// - What is missing: the plan's points no input recorded, by shard, as a Slurm `--array=` list to
//   resubmit; the merged experiment is then left unfinished, so `ema run --resume` runs them.
// Nothing is written until every input has been read and checked; the output gains one experiment
// and loses nothing it held.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ema {

struct merge_result {
  std::int64_t experiment = 0;  ///< in the output database
  int points = 0;               ///< points stored
  std::vector<std::string> dropped;  ///< duplicates left out, each with where it was kept
  int missing = 0;                   ///< planned points no input recorded
  std::vector<int> missing_shards;   ///< the shards they belong to (of shard_count)
  int shard_count = 0;               ///< 0: the inputs were not shards
  int machines = 1;                  ///< kinds of machine the points ran on
};

/// Merges the experiments of `inputs` into a new experiment of the database `output`.
/// usage_error for an output that is one of the inputs, no input, inputs of different plans or
/// holding no experiment; database_error for a file that is not an ema database.
merge_result merge_shards(const std::string& output, const std::vector<std::string>& inputs, const std::string& command_line);

/// "0,2,5-7": the Slurm --array list of these task numbers (sorted, no repeats).
std::string array_list(std::vector<int> tasks);

}  // namespace ema
