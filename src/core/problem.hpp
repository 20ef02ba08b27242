// The core model: a problem (what n means, a seeded input generator, parameters, a verifier
// backed by a simple reference, a work model) and its variants (one algorithm on one back end).
// Both are described by constant-initialised descriptors so that registration does no work
// before main (see core/registry.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "core/backend.hpp"
#include "core/params.hpp"
#include "core/run_context.hpp"
#include "inputs/host_array.hpp"

namespace ema {

/// What one point asks of a problem's generator.
struct point_request {
  std::uint64_t n = 0;
  const param_set* params = nullptr;
  std::uint64_t seed = 0;
  host_memory_kind memory = host_memory_kind::pageable;
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

struct problem_desc {
  const char* name;
  const char* title;         ///< one line
  const char* size_meaning;  ///< what n counts
  const char* source;        ///< the source document it follows
  std::span<const param_spec> params;
  const char* default_sizes;  ///< the plan of `ema run` without --sizes (the main job's)
  std::unique_ptr<workload> (*prepare)(const point_request&);
  work_model (*work)(std::uint64_t n, const param_set&);
  std::uint64_t max_size = 0;  ///< the largest n the problem can represent; 0: no limit but memory
  /// Checks the parameters for the sizes a plan runs (every size of a fixed plan; a calibrated
  /// plan's first size) before anything is stored: value ranges, the size arithmetic they enter
  /// (never overflowing), input files read whole. Throws usage_error naming what is wrong; nullptr
  /// when the declared kinds say all.
  void (*validate)(const param_set&, std::span<const std::uint64_t> sizes) = nullptr;
};

struct variant_desc {
  const char* problem;
  const char* name;
  ema::backend backend;
  const char* description;  ///< one line
  const char* provenance;   ///< e.g. "Algorithm 2 of 001_9fea77a744af8951.txt", "ours", "anchor: thrust::find"
  outcome (*run)(workload&, run_context&);
  /// Why the algorithm does not apply to these parameters (e.g. a method without pivoting on a
  /// general matrix), or nullptr when it does; such points are recorded as skipped, never run.
  const char* (*not_applicable)(const param_set&) = nullptr;
};

/// Glue that turns a problem's typed pieces into the type-erased descriptors above.
/// Traits provides: `input`, `output`, `static input generate(const point_request&)`,
/// `static E reference(const input&)`, and
/// `static outcome check(const input&, const E& expected, const output& got)`, where E is usually
/// the output itself (the reference's answer) or whatever the verifier needs from the input.
template <class Traits>
struct problem_kit {
  using input = typename Traits::input;
  using output = typename Traits::output;
  using expected_type = decltype(Traits::reference(std::declval<const input&>()));
  using run_fn = output (*)(const input&, run_context&);

  struct typed_workload final : workload {
    input in;
    expected_type expected;
  };

  static std::unique_ptr<workload> prepare(const point_request& request) {
    auto w = std::make_unique<typed_workload>();
    w->in = Traits::generate(request);
    w->expected = Traits::reference(w->in);
    return w;
  }

  /// Runs a variant once, timing the whole call as `total`, then verifies its output.
  template <run_fn Run>
  static outcome run(workload& w, run_context& ctx) {
    auto& t = static_cast<typed_workload&>(w);
    ctx.start_total();
    output got = Run(t.in, ctx);
    ctx.stop_total();
    return Traits::check(t.in, t.expected, got);
  }
};

}  // namespace ema
