// The core model: a problem (what n means, a seeded input generator, parameters, a verifier
// backed by a simple reference, a work model) and its variants (one algorithm on one back end).
// Both are described by constant-initialised descriptors so that registration does no work
// before main (see core/registry.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <map>
#include <string>
#include <utility>

#include "core/backend.hpp"
#include "core/launch.hpp"
#include "core/params.hpp"
#include "core/run_context.hpp"
#include "core/host_memory_kind.hpp"

namespace ema {

/// What one point asks of a problem's generator.
struct point_request {
  std::uint64_t n = 0;
  const param_set* params = nullptr;
  std::uint64_t seed = 0;
  host_memory_kind memory = host_memory_kind::pageable;
  /// `ema run`'s input cache, for the problems whose inputs are worth keeping between points
  /// (problem_desc::cached_inputs; inputs/graph_cache.hpp): its folder ("" for none) and cap in bytes.
  std::string cache_dir;
  double cache_cap = 0;
  /// Where the generator records how it made the input (bfs: `graph`, built or read from the
  /// cache); stored with the point's notes. nullptr: nobody asks.
  std::map<std::string, std::string>* notes = nullptr;
};

/// The work a problem instance demands: the bytes that must move through memory at least once
/// and the operations that must be done. Used for achieved GB/s and the fraction of a ceiling.
struct work_model {
  double bytes = 0;
  double ops = 0;
};

/// One generated input with its reference answer; each problem derives its own.
class workload {
 public:
  virtual ~workload() = default;
};

/// The verdict of the problem's verifier on one run's output.
struct outcome {
  bool verified = false;
  std::string reason;       ///< what is wrong, when not verified
  std::string result_json;  ///< the problem's summary of the output (e.g. {"index": 17})
};

/// The rate a problem is quoted in (tables, the report): a bandwidth of the bytes its work model
/// must move, with the fraction of the probed read ceiling beside it, or a rate of its own
/// operations (GFLOP/s, cells/s, keys/s, TEPS).
struct rate_desc {
  const char* name = "GB/s";                            ///< the column's heading, the unit included
  bool of_bytes = true;                                 ///< work_model::bytes, else work_model::ops
  double scale = 1e9;                                   ///< per second, divided by this
  const char* meaning = "bytes the problem must read";  ///< what is counted, for the footnote
  /// Where the operations depend on the generated input and not on n alone (bfs: the edges of the
  /// components the searches reached, summed over the roots), the field of the result JSON that
  /// holds them; the rate is that over the time (input instances pooled: their mean), the work
  /// model's ops unused for it. nullptr: the work model's.
  const char* work_field = nullptr;
};

/// What one operation of a problem's work model costs in floating-point arithmetic: the roofline's
/// compute roof (report/roofline.hpp) is the probed FMA throughput in that precision over it.
struct flop_model {
  double per_op = 0;  ///< flops per operation (an FMA counts two)
  bool f64 = false;   ///< double precision, else single
};

/// Operations one algorithm of a problem must do beyond the problem's work model, which counts what
/// every algorithm must (sort: each key read and written once): a comparison sort's n log₂ n
/// comparisons, the lower bound of sorting by comparisons. `ema fit` and a calibrated sweep's settle
/// phase weigh an answer against it as against the work model's (analysis_options::work).
struct algorithm_work {
  const char* algorithm = nullptr;
  double (*ops)(double n) = nullptr;
  const char* what = nullptr;  ///< what it counts, one phrase
};

/// n log₂ n (n where n ≤ 1): the floor of sorting by comparisons, and of Dijkstra's heap.
double n_log2_n(double n);

/// What a column a problem declares shows.
enum class summary_kind {
  note,       ///< a note its variants record, as recorded, in the rows that have it
  bandwidth,  ///< the work model's bytes over the rate's time (an effective bandwidth, GB/s), and
              ///< its share of the probed ceiling ("% ceil"); shown beside the rate
};

/// A column a problem adds to its result tables (issue 30, item 1; after nvbench's summaries), and
/// what it counts, for the legend under the table. report/columns.cpp shows it (summary_values,
/// bandwidth_values); nothing else does.
struct summary_desc {
  const char* name = nullptr;  ///< the column's heading (a note: the note's name)
  const char* what = nullptr;  ///< what it counts, one phrase
  summary_kind kind = summary_kind::note;
  /// A bandwidth: the probed ceiling a GPU variant's bytes are compared with: device_read_bw, or
  /// device_copy_bw where the work model counts bytes read and written, as a copy does.
  const char* gpu_ceiling = "device_read_bw";
};

struct problem_desc {
  const char* name = nullptr;
  const char* title = nullptr;         ///< one line
  const char* size_meaning = nullptr;  ///< what n counts
  const char* source = nullptr;        ///< the source document it follows
  std::span<const param_spec> params{};
  const char* default_sizes = nullptr;  ///< the plan of `ema run` without --sizes (the main job's)
  /// The plan of its GPU variants (cuda, multi-gpu) without --sizes, where a GPU takes sizes the
  /// CPU variants cannot afford: at the CPU plan's largest sizes a GPU sort or stencil is still
  /// bound by its launches and fixed costs, and its class shows only past them (issue 29: search's
  /// plan to 2^28 made three GPU scans firm on an H200 that were not at 2^26). nullptr:
  /// default_sizes. Use default_plan() to read it.
  const char* default_sizes_gpu = nullptr;
  /// The variant every speedup falls back on when a variant's own algorithm has none on the
  /// baseline's back end (registry.hpp, speedup_baseline): the source's sequential algorithm.
  const char* reference_variant = "seq";
  std::unique_ptr<workload> (*prepare)(const point_request&) = nullptr;
  work_model (*work)(std::uint64_t n, const param_set&) = nullptr;
  /// The bytes a run keeps resident (its arrays), where they differ from the work's bytes (the
  /// stencil moves its two grids once a step, so its work's bytes grow with the steps and its
  /// working set does not); nullptr: the work's bytes. What the caches are compared with.
  double (*working_set)(std::uint64_t n, const param_set&) = nullptr;
  rate_desc rate{};
  /// One operation of the work model, plural, for the roofline's axes ("keys", "cell updates").
  const char* op_unit = "operations";
  /// The floating-point arithmetic of one operation (gauss: a flop; stencil: a cell update's nine),
  /// the roofline's compute roof. nullptr: its operations are not floating-point arithmetic
  /// (comparisons, keys, edges) and the roofline has the memory roof alone.
  flop_model (*flops)(const param_set&) = nullptr;
  std::uint64_t max_size = 0;  ///< the largest n the problem can represent; 0: no limit but memory
  /// The largest n it can build an input of with these parameters, where that is below max_size
  /// (rqa's `system=logistic`: the source's orbit reaches 0 in double at step 15489530, and a
  /// longer series is no longer chaotic); 0: max_size. A calibrated sweep grows no track past it;
  /// a fixed plan's sizes past it are refused by validate. nullptr: max_size.
  std::uint64_t (*largest_size)(const param_set&) = nullptr;
  /// Checks the parameters for the sizes a plan runs (every size of a fixed plan; a calibrated
  /// plan's first size) before anything is stored: value ranges, the size arithmetic they enter
  /// (never overflowing), input files read whole. Throws usage_error naming what is wrong; nullptr
  /// when the declared kinds say all.
  void (*validate)(const param_set&, std::span<const std::uint64_t> sizes) = nullptr;
  /// The size nearest `n` that the problem can build an input of with these parameters (bfs and
  /// sssp on kron graphs: the nearest power of two). A calibrated sweep (`--budget`) proposes its
  /// sizes through it. nullptr: every n.
  std::uint64_t (*size_near)(const param_set&, std::uint64_t n) = nullptr;
  /// The n an input file named in the parameters sets (gauss's `file=`: its order; rqa's `input=`:
  /// its length), or 0 when the parameters name none; `ema run` then needs no --sizes. Reads the
  /// file, throwing usage_error naming what is wrong with it. nullptr: the problem reads no files.
  std::uint64_t (*size_from_input)(const param_set&) = nullptr;
  /// The conformance tests (tests/problems/test_conformance_cpu.cpp, _gpu.cpp) run every variant over every
  /// size here (the problem's edge cases: 0, 1, 2^k - 1, 2^k, 2^k + 1 around its block widths)
  /// times every parameter set here (`k=v,k=v` as --param takes them; "" for the defaults) times
  /// two seeds. A case the problem's validate refuses, or a variant's not_applicable declines, is
  /// counted as such.
  std::span<const std::uint64_t> test_sizes{};
  std::span<const char* const> test_params{};
  /// The fields of the result JSON on which every variant of one algorithm must agree exactly with
  /// that algorithm's `seq` (the conformance tests); empty: the whole result (gauss: the status
  /// only, since the solution's rounding depends on the order of operations).
  std::span<const char* const> answer_fields{};
  /// Algorithms that estimate the answer by sampling and so do less than the work model (rqa's
  /// motif and microstates estimators): for them the work is no floor of the cost's growth (`ema
  /// fit`, docs/cli/fit.md); for every other variant it is.
  std::span<const char* const> estimators{};
  /// Work particular algorithms must do beyond the work model (above).
  std::span<const algorithm_work> algorithm_floors{};
  /// The columns it adds to its result tables (summary_desc): notes its variants record (sort: the
  /// CUDA-DP variants' device launches and depth, the host loop's iterations), a bandwidth beside a
  /// rate of operations (stencil: its effective bandwidth).
  std::span<const summary_desc> summaries{};
  /// Builds inputs costly enough to keep on disk between points (bfs: graphs): `ema run` opens its
  /// input cache for the plan and passes it in point_request.
  bool cached_inputs = false;
};

/// Who wrote a variant's algorithm: the source document (implemented as written, so its claims can
/// be checked), us (the fastest we can make), or a library a user would otherwise reach for.
enum class variant_role { unset, source, ours, anchor };

constexpr std::string_view to_string(variant_role r) {
  switch (r) {
    case variant_role::source:
      return "source";
    case variant_role::ours:
      return "ours";
    case variant_role::anchor:
      return "anchor";
    case variant_role::unset:
      break;
  }
  return "?";
}

/// The role named by to_string, or unset.
constexpr variant_role variant_role_from_string(std::string_view s) {
  for (auto r : {variant_role::source, variant_role::ours, variant_role::anchor})
    if (to_string(r) == s) return r;
  return variant_role::unset;
}

struct variant_desc {
  const char* problem = nullptr;  ///< filled from the problem's traits by problem_kit::variant
  const char* name = nullptr;     ///< `<backend>[-<qualifier>]`, or `<algorithm>-<backend>[-<qualifier>]` where a problem has several algorithms
  /// The algorithm it implements (quick, merge, exact ...); the problem's name where it has one.
  /// A speedup compares back ends of one algorithm: its baseline is the same algorithm's `seq`.
  const char* algorithm = nullptr;
  ema::backend backend = ema::backend::seq;
  variant_role role = variant_role::unset;
  const char* description = nullptr;  ///< one line
  const char* provenance = nullptr;   ///< e.g. "Algorithm 2 of Nobre et al., 001_9fea77a744af8951.txt", "thrust::find"
  /// What its speedup against the same algorithm's `seq` holds besides its threads or its GPU, where
  /// the two run the algorithm differently ("vectorised; seq is scalar"): the reports say it beside
  /// the ratio, which is then not parallel speedup alone (issue 31, item 4). nullptr: nothing else.
  const char* speedup_caveat = nullptr;
  outcome (*run)(workload&, run_context&) = nullptr;  ///< filled by problem_kit::variant
  /// The same run without the check, its output kept in the workload for check_last: the energy
  /// window's runs (runner/worker.cpp), so the meter sees the variant and not the verifier.
  void (*run_unchecked)(workload&, run_context&) = nullptr;  ///< filled by problem_kit::variant
  /// Checks the output the last run_unchecked kept (unverified when there is none).
  outcome (*check_last)(workload&) = nullptr;  ///< filled by problem_kit::variant
  /// Its kernels' launch settings (core/launch.hpp): recorded with every point, overridable as
  /// `--param launch.<field>=V`.
  std::span<const launch_field> launch{};
  /// Why its launch settings, as `params` overrides them (with_overrides, core/launch.hpp), cannot
  /// run at size n (threads per block past 1024, a tile with no inner cells), or "" when they can.
  /// Asked for every point when the plan is made, so an impossible override is the command's error
  /// (exit 2) before anything runs; the variant asks the same function again as it runs.
  std::string (*launch_refuses)(const param_set& params, std::uint64_t n) = nullptr;
  /// Why it has no launch settings though it launches kernels of its own: a geometry its source
  /// dictates (rqa microstates-cuda: a block per microstate, a thread per column). Every CUDA variant but
  /// a library's (role anchor) declares settings or this (tests/core/test_registry.cpp).
  const char* launch_fixed = nullptr;
  /// The problem's tuning parameters it reads (param_spec::tuning); empty: none.
  std::span<const char* const> tuning{};
  /// Why the algorithm does not apply to these parameters at size n (a method without pivoting on
  /// a general matrix; rqa's microstates larger than the plot), or nullptr when it does; such
  /// points are recorded as skipped, never run.
  const char* (*not_applicable)(const param_set&, std::uint64_t n) = nullptr;
};

/// The sizes `ema run` gives the variant without --sizes: the problem's GPU plan for a GPU
/// variant where it declares one (problem_desc::default_sizes_gpu), else its default plan.
constexpr const char* default_plan(const problem_desc& p, const variant_desc& v) {
  const bool gpu = v.backend == backend::cuda || v.backend == backend::multi_gpu;
  return gpu && p.default_sizes_gpu ? p.default_sizes_gpu : p.default_sizes;
}

namespace detail {
// Called only during constant evaluation of a registration: the throw makes a malformed
// descriptor a compile-time error naming what is missing.
constexpr void require(bool ok, const char* what) {
  if (!ok) throw what;
}
}  // namespace detail

/// Glue that turns a problem's typed pieces into the type-erased descriptors above.
/// Traits provides: `static constexpr const char* name`, `input`, `output`, `static input generate(const point_request&)`,
/// `static E reference(const input&)`, and
/// `static outcome check(const input&, const E& expected, const output& got)`, where E is usually
/// the output itself (the reference's answer) or whatever the verifier needs from the input.
template <class Traits>
struct problem_kit {
  using input = typename Traits::input;
  using output = typename Traits::output;
  using expected_type = decltype(Traits::reference(std::declval<const input&>()));
  using run_fn = output (*)(const input&, run_context&);
  /// What a variant needs of the input beyond what the generator builds for every variant (sssp's
  /// edge list for the source's Bellman-Ford): built in place before each run, untimed, and idempotent
  /// (a no-op once built), so a workload shared by several variants builds it once.
  using ready_fn = void (*)(input&);
  /// The Ready step of a variant that needs nothing more (the default).
  static void nothing_to_ready(input&) {}

  struct typed_workload final : workload {
    input in;
    expected_type expected;
    std::optional<output> last;  ///< run_unchecked's output, until check_last or the next run
  };

  static std::unique_ptr<workload> prepare(const point_request& request) {
    auto w = std::make_unique<typed_workload>();
    w->in = Traits::generate(request);
    w->expected = Traits::reference(w->in);
    return w;
  }

  /// The problem's descriptor: `d` with the name from the traits (`Traits::name`) and the
  /// generator and reference of the traits; used as EMA_PROBLEM(id, kit::problem({.title = ...})).
  static constexpr problem_desc problem(problem_desc d) {
    detail::require(d.name == nullptr, "the problem's name comes from its traits");
    detail::require(d.title && d.size_meaning && d.source && d.default_sizes && d.work,
                    "a problem needs a title, "
                    "size_meaning, source, default_sizes and work");
    d.name = Traits::name;
    d.prepare = &prepare;
    return d;
  }

  /// A variant's descriptor: `d` with the problem's name, the algorithm defaulted to the problem's
  /// name, and `Run` wrapped to time and verify it (after `Ready`, when given, outside the time); used as
  /// EMA_VARIANT(id, kit::variant<&run_fn>({.name = ..., .backend = ..., .role = ..., ...})).
  template <run_fn Run, ready_fn Ready = &nothing_to_ready>
  static constexpr variant_desc variant(variant_desc d) {
    detail::require(d.problem == nullptr && d.run == nullptr, "problem and run are filled by problem_kit::variant");
    detail::require(d.name && d.description && d.provenance, "a variant needs a name, description and provenance");
    detail::require(d.role != variant_role::unset, "a variant needs a role: source, ours or anchor");
    d.problem = Traits::name;
    if (!d.algorithm) d.algorithm = Traits::name;
    d.run = &run<Run, Ready>;
    d.run_unchecked = &run_unchecked<Run, Ready>;
    d.check_last = &check_last;
    return d;
  }

  /// Runs a variant once, timing the whole call as `total`, then verifies its output.
  template <run_fn Run, ready_fn Ready>
  static outcome run(workload& w, run_context& ctx) {
    auto& t = static_cast<typed_workload&>(w);
    Ready(t.in);
    ctx.start_total();
    output got = Run(t.in, ctx);
    ctx.stop_total();
    return Traits::check(t.in, t.expected, got);
  }

  /// Runs a variant once, timing the whole call as `total`, and keeps its output unchecked.
  template <run_fn Run, ready_fn Ready>
  static void run_unchecked(workload& w, run_context& ctx) {
    auto& t = static_cast<typed_workload&>(w);
    t.last.reset();  // the previous output goes before this run, as it would after a checked one
    Ready(t.in);
    ctx.start_total();
    t.last.emplace(Run(t.in, ctx));
    ctx.stop_total();
  }

  static outcome check_last(workload& w) {
    auto& t = static_cast<typed_workload&>(w);
    if (!t.last) return {false, "no output to check: the variant did not run", {}};
    auto checked = Traits::check(t.in, t.expected, *t.last);
    t.last.reset();
    return checked;
  }
};

}  // namespace ema
