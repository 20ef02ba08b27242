// The plan of a sweep: every point (problem, variant, n, parameters, seed) in the order it runs,
// with the repetition policy. It is stored with the experiment so `--resume` can finish it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/params.hpp"
#include "core/sizes.hpp"

namespace ema {

struct problem_desc;

/// When a point has enough repetitions (docs/measurement.md, "Repetitions").
struct repetition_policy {
  int warmup = 1;            ///< untimed runs first (context creation, module load, caches)
  int min_reps = 5;          ///< at least this many timed runs
  int max_reps = 2000;       ///< at most this many
  double target_rse = 0.01;  ///< stop once the median's relative standard error is below this
  double min_time = 0.2;     ///< ... but not before the timed runs have taken this long (seconds),
                             ///< so a passing disturbance cannot own the median of a fast operation
  double max_time = 1.0;     ///< ... or once the timed runs have taken this long (seconds)
  std::optional<int> fixed;  ///< --reps N: exactly N timed runs

  /// The min_time of a calibrated sweep (`ema run --budget`) unless --min-time is given. Its timed
  /// runs are a cost traded against sizes: a point whose runs are short costs its process (on the
  /// H200 0.17 s with a CUDA context) and min_time, so 0.2 s of runs halved the points of a
  /// budget's GPU tracks for a median whose own error is far below what sizes scatter by between
  /// processes. Measured in paired calibrated sweeps of sort, stencil, gauss and search on an H200
  /// (docs/calibration.md, "Shorter repetitions where the budget is the limit").
  static constexpr double calibrated_min_time = 0.05;

  nlohmann::json to_json() const;
  /// Missing fields take their defaults.
  static repetition_policy from_json(const nlohmann::json& j);
  /// Whether the timed runs so far (`totals`, taking `elapsed` seconds) are enough.
  bool satisfied(const std::vector<double>& totals, double elapsed) const;
};

struct energy_policy {
  bool enabled = true;
  double window = 1.0;  ///< seconds of back-to-back runs per energy sample, at least
};

/// Which points share a worker process (`ema run --processes`; docs/measurement.md "A process per
/// point or per track"): every point its own (the default of a fixed plan); each track's points one
/// process, kept while its points succeed (`track`); or so for the tracks that use a GPU and one
/// process per point for the rest (`gpu-track`, the default of a calibrated sweep: a GPU point's
/// own process cost 0.16-0.21 s on the H200, its CUDA context most of it, a CPU point's 0.02 s).
enum class process_policy { point, track, gpu_track };

std::string_view to_string(process_policy p);
/// "point", "track" or "gpu-track"; nullopt otherwise.
std::optional<process_policy> process_policy_from(std::string_view text);

struct plan_point {
  int ordinal = 0;
  std::string problem, variant;
  std::uint64_t n = 0;
  param_set params;
  std::uint64_t seed = 0;
  int instance = 0;  ///< which of the `instances` inputs of (problem, n, parameters)
  /// How a calibrated sweep chose it: "grow", "fill", "settle" (the verdict's next size),
  /// "more-sizes" (sizes between the regime's, where the verdict says how many would settle it;
  /// also `ema fit --more-sizes`), "energy" (an energy window at a kept size) or "tie-breaker"
  /// (`ema fit`); "rerun"
  /// (`--rerun-noisy`); "round K" (`--rounds`: the K-th measurement of a plan point, K from 2);
  /// empty otherwise.
  std::string phase;
};

/// One variant's sizes in a calibrated sweep (`--budget`), chosen as it runs (runner/calibrate.hpp).
struct track {
  std::string problem, variant;
  param_set params;
  std::uint64_t start = 1;     ///< the first size
  std::uint64_t max_size = 0;  ///< 0: no limit but memory and time
  std::string stopped;         ///< why it stopped growing; empty while it grows
  std::string settled;         ///< the verdicts of its total (and kernel) time once grown, and why each stays unsettled
};

struct calibration {
  double budget = 0;  ///< seconds for the whole sweep
  int min_sizes = 12;
  double growth = 2;
  int energy_sizes = 5;  ///< with energy on: the kept sizes per variant measured with an energy window
  /// The share of the budget growth leaves to the settle phase (a plan stored without it: none).
  double settle_share = 0.1;
  std::vector<track> tracks;
};

/// A user's program run by `ema exec` in place of registered variants (runner/external.hpp).
struct external_program {
  std::string generator;                                  ///< command with {n}, {input} and {seed}: writes the input file
  std::vector<std::pair<std::string, std::string>> runs;  ///< variant name, command with {input} and {n}
  std::string cache_dir;                                  ///< where generated inputs are kept (absolute; inputs/input_cache.hpp)
  double cache_cap = 0;                                   ///< bytes the cache may hold; the least recently used inputs go first
  std::string cwd;                                        ///< the folder the commands run in: where the experiment was started (empty: ema's)
};

/// One part of a plan split over several tasks (`ema run --shard i/N`, runner/shard.hpp): a
/// shard's experiment stores its own part of the plan (its points, with their ordinals in the whole
/// plan; a calibrated plan's own tracks) and the whole plan's digest and size; `ema merge` joins the
/// shards of one plan.
struct shard_spec {
  int index = 0, count = 1;  ///< this shard, 0-based, of `count`
  std::string digest;        ///< the whole plan's (runner/shard.hpp plan_digest): the same in every shard
  std::string part;          ///< the digest of this shard's own stored plan, as made ("" in shards made before it)
  /// The points of the plan this shard runs, in order. Stored as the ordinals of its points where
  /// `size` is set; shards made before stored the whole plan and list them.
  std::vector<int> ordinals;
  int size = 0;                      ///< the whole fixed plan's points; 0: the plan is stored whole (or calibrated)
  int tracks = 0;                    ///< a calibrated plan's tracks before the split
  std::string basis = "work model";  ///< what the split's costs came from (runner/shard.hpp)
};

/// An experiment made by `ema merge` (runner/merge.hpp): the digest of the plan its shards split
/// and the digest of its own stored plan as written (a calibrated merge reorders the tracks).
struct merge_spec {
  std::string digest, part;
  int shards = 0;  ///< the parts of the split (0: the inputs were not shards)
  /// The whole fixed plan's points, of which it stores those its inputs held (a shard that left no
  /// database leaves a gap); 0: merges made before, which store every point.
  int size = 0;
};

struct plan {
  std::vector<plan_point> points;
  repetition_policy reps;
  energy_policy energy;
  double timeout = 300;  ///< seconds per point, generation included
  std::uint64_t seed = 1;
  int instances = 1;                                 ///< inputs per size, each with its own seed (`--instances`)
  int rounds = 1;                                    ///< passes over the fixed plan's points (`--rounds`, add_rounds)
  process_policy processes = process_policy::point;  ///< stored where it is not `point`
  std::optional<calibration> calibrated;             ///< `--budget`: sizes chosen while running
  std::optional<external_program> external;          ///< `ema exec`
  std::vector<std::string> notes;                    ///< e.g. variants left out because they cannot run here
  /// `ema run`'s input cache for the problems that keep built inputs (problem_desc::cached_inputs):
  /// the folder (absolute; "" for none: `--no-cache`, or no such problem) and its cap in bytes.
  std::string input_cache_dir;
  double input_cache_cap = 0;
  /// `--weak`: a weak-scaling plan, its sizes at the smallest processor count (runner/plan.cpp
  /// weak_size: at p processors, the size with p/p0 times the work); empty for any other plan.
  std::vector<std::uint64_t> weak;
  std::optional<shard_spec> shard;   ///< `--shard`: the part of the plan this experiment runs
  std::optional<merge_spec> merged;  ///< made by `ema merge`

  /// Whether this experiment runs `pt`: every point, or the shard's own.
  bool runs(const plan_point& pt) const;
  /// The whole fixed plan's points where this experiment stores a part of it (a shard, a merge with
  /// a gap): its points without a phase are numbered below it, the ones added later from it up; 0
  /// where the plan is stored whole, numbered from 0 without a gap.
  int whole_size() const;

  /// Appends a point (ordinal, seed and instance filled in) for each instance.
  void add(const std::string& problem, const std::string& variant, std::uint64_t n, const param_set& params, const std::string& phase = "");

  /// As stored with its experiment; without `with_points`, its points an empty array.
  nlohmann::json to_json(bool with_points = true) const;
  /// One point as to_json writes it in "points".
  static nlohmann::json point_to_json(const plan_point& p);
  /// A plan as stored with its experiment; database_error when it is malformed (a missing field, a
  /// wrong type, an impossible value: changed by hand or damaged).
  static plan from_json(const nlohmann::json& j);
};

/// What the user asked `ema run` for.
struct plan_request {
  std::vector<std::string> problems;  ///< empty with all = true
  bool all = false;
  std::vector<std::string> variants;  ///< empty: every variant that can run here
  std::optional<std::string> sizes;   ///< empty: each problem's default plan
  std::vector<std::string> params;    ///< key=value
  std::uint64_t seed = 1;
  int instances = 1;
  int rounds = 1;                                ///< passes over the plan's points (`--rounds`)
  std::optional<double> budget;                  ///< seconds: calibrate the sizes instead of `sizes`
  std::optional<std::uint64_t> start, max_size;  ///< a calibrated sweep's first and largest size
  std::optional<double> settle_share;            ///< a calibrated sweep's share kept for settling (calibration::settle_share)
  size_order order = size_order::interleaved;    ///< the order a fixed plan runs its sizes in
  /// `--weak LIST`: weak scaling. Each size of the list is a variant's size at the smallest count of
  /// its processor axis (threads, SMs, GPUs); at p processors it runs at weak_size(n0, p/p0).
  std::optional<std::string> weak;
};

/// Weak scaling's size (Gustafson): the size whose work, by the problem's work model (its
/// operations), is `scale` times the work at n0, so that each processor's share stays the same —
/// n0·scale for a problem whose work grows as n, n0·√scale for the stencil's n² cells a step,
/// n0·∛scale for Gaussian elimination's n³; n0·scale for a problem without a work model. The
/// nearest integer size; usage_error where it passes the problem's largest size.
std::uint64_t weak_size(const problem_desc& p, const param_set& params, std::uint64_t n0, double scale);

/// The most points one plan may hold, and the most input instances per size.
constexpr std::size_t max_plan_points = 1000000;
/// Memory a plan takes a point while it is planned and stored (an upper estimate, measured).
constexpr double plan_point_bytes = 2048;
constexpr int max_instances = 10000;
/// The most passes `--rounds` may make.
constexpr int max_rounds = 10;

/// `--rounds R`: the fixed plan's points measured R times, each time in a fresh process, in R
/// passes over the whole plan one after another (the K-th pass's points have the phase "round K"),
/// so that the measurements of one point lie a whole pass apart in time. A slow spell of the
/// machine (another process, a busy VM host: on the 2-core VM such spells last seconds and slow a
/// memory scan up to 2x) then rarely covers a point in every pass, and of its rounds the quickest
/// is kept (store/remeasured.hpp). Appends the passes to `p` and sets p.rounds; usage_error for
/// a calibrated plan, or for more passes than max_rounds or points than max_plan_points.
void add_rounds(plan& p, int rounds);

/// The checks of a request that do not depend on its problems: instances, the choice between sizes
/// and a budget, and a calibration's first and largest size. usage_error naming the option.
void check_sweep_shape(const plan_request& request);

/// Expands a request into points (or, with a budget, into calibration tracks). Throws usage_error
/// for unknown problems, variants (or one named twice) or parameters, malformed sizes, a size past
/// the problem's largest, parameters its `validate` refuses for the sizes, and a plan of more than
/// max_plan_points points. Without --variants, variants that cannot run here are left out with a
/// note; named ones stay and are recorded as skipped.
plan make_plan(const plan_request& request);

/// The seed of a point's input: the same for every variant at one (problem, n, parameters,
/// instance), tuning parameters and launch settings left out (every value of such an axis runs on
/// the same input); instance 0 keeps the seed of a sweep without instances.
std::uint64_t point_seed(std::uint64_t base, const std::string& problem, std::uint64_t n, const param_set& params, int instance = 0);

}  // namespace ema
