// `ema merge`: joins the shards of one plan (`ema run --shard i/N`, runner/shard.hpp), each in its
// own database, into one experiment of a database (docs/cli/merge.md, docs/cluster.md).
// - Every experiment of every input is read (or one, as DB:N); all must be of one plan. The plan
//   each stored experiment belongs to is the digest its shard (or merge) recorded, checked against
//   the plan it stores: a database changed by hand is refused (database_error), and every ordinal
//   read from it is bounded.
// - Every point once: a point is known by what it measures (problem, variant, n, parameters,
//   seed, instance, phase), so the same shard given twice, or two shards that both hold a point,
//   keep the first copy in the order given, and the merge names each copy it left out that is not
//   the same measurement.
// - Each point keeps the machine it ran on: its notes gain `merged_from` (database and experiment)
//   and `machine` (its kind: CPU, cores, GPUs; measure/machine.hpp machine_kind), besides the `host`,
//   `slurm_job` and `slurm_task` the sweep recorded; the experiment's machine is the first input's,
//   with every kind of machine and its probed ceilings under `machines` when there are several.
// - What is missing: the plan's points no input recorded, by shard, as a Slurm `--array=` list to
//   resubmit; the merged experiment is then left unfinished, so `ema run --resume` runs those it
//   holds. A shard stores only its own points, so the part of a shard that left no database is a gap
//   in the merged plan: only its task (resubmitted, then merged again) runs it.
// - A merge never destroys stored points. An earlier merge of the same plan in the output (with the
//   points a `--resume` of it added) is read first, so the new experiment holds all it held; it is
//   then replaced by the new one, in the same transaction. An earlier merge holding a point the new
//   one leaves out (the same point measured twice) is kept as it was.
// - All or nothing: nothing is written until every input has been read and checked; the output
//   gains its experiment in one transaction, and a new output file is written under a temporary
//   name beside it and renamed into place only when complete (never over a file that appeared
//   meanwhile). A merge stopped midway leaves the output as it was.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ema {

struct merge_result {
  std::int64_t experiment = 0;       ///< in the output database
  int points = 0;                    ///< points stored
  std::vector<std::string> dropped;  ///< duplicates left out (other measurements of a kept point), each with where it was kept
  int missing = 0;                   ///< planned points no input recorded
  int unheld = 0;                    ///< of them, the points no input holds (the parts of shards that left no database): not in the merged plan
  std::vector<int> missing_shards;   ///< the shards they belong to (of shard_count)
  int shard_count = 0;               ///< 0: the inputs were not shards
  int machines = 1;                  ///< kinds of machine the points ran on
  struct earlier_merge {
    std::int64_t experiment = 0;
    int points = 0;
    bool replaced = false;  ///< by the new experiment, which holds all it held; else kept as it was
  };
  std::vector<earlier_merge> earlier;  ///< the merges of this plan the output held, read first
};

/// Merges the experiments of `inputs` (each a database, or DB:N for its experiment N) into a new
/// experiment of the database `output`. usage_error for an empty path, an output that is one of the
/// inputs or one of their files (journal, WAL), no input, inputs of different plans or holding no
/// experiment; database_error for a file that is not an ema database, a database changed by hand,
/// or an earlier merge in the output that another ema process is running right now.
merge_result merge_shards(const std::string& output, const std::vector<std::string>& inputs, const std::string& command_line);

/// "0,2,5-7": the Slurm --array list of these task numbers (sorted, no repeats).
std::string array_list(std::vector<int> tasks);

}  // namespace ema
