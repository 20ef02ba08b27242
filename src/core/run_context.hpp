// What the harness hands a variant while it runs one repetition of a point: the size, the
// parameters, a place to report phase times (alloc, h2d, kernel, d2h, free), the device memory
// accounting, and notes such as the launch geometry, which are stored with the point.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "core/launch.hpp"
#include "core/params.hpp"
#include "core/device_memory.hpp"

namespace ema {

class run_context {
 public:
  run_context(std::uint64_t n, const param_set& params, int gpu_count) : n_(n), params_(params), gpu_count_(gpu_count) {}

  std::uint64_t n() const { return n_; }
  const param_set& params() const { return params_; }
  /// Devices this point may use (the multi-GPU back end uses all of them).
  int gpu_count() const { return gpu_count_; }

  /// Adds `seconds` to phase `metric` of the current repetition.
  void add_phase(std::string_view metric, double seconds) { phases_[std::string(metric)] += seconds; }
  device_memory_tracker& device_memory() { return device_memory_; }

  /// Records a fact about how the variant ran (launch geometry, thread count), kept once per point.
  void note(std::string_view key, std::string_view value) { notes_[std::string(key)] = value; }
  void note(std::string_view key, std::int64_t value) { notes_[std::string(key)] = std::to_string(value); }
  /// A kernel's launch settings as the variant chose them, with any `--param launch.<field>=V`
  /// applied, each field recorded as the note `launch.<field>` (core/launch.hpp).
  template <class Settings>
  Settings launch(Settings s) {
    const auto m = s.members();
    apply_launch(Settings::fields, std::span<int* const>(m.data(), m.size()));
    return s;
  }
  void apply_launch(std::span<const launch_field> fields, std::span<int* const> members);

  /// The processor count p of the source's efficiency (speedup / p) and cost (p · time), where the
  /// algorithm defines one: threads of an OpenMP variant, p = n / log n of a PRAM-style kernel.
  void processors(std::int64_t p) { note("processors", p); }

  /// The wall time of the whole operation as a user sees it; problem_kit brackets the variant.
  void start_total() { total_start_ = clock::now(); }
  void stop_total() { phases_["total"] += std::chrono::duration<double>(clock::now() - total_start_).count(); }

  // Harness side.
  void begin_repetition() { phases_.clear(); }
  const std::map<std::string, double>& phases() const { return phases_; }
  const std::map<std::string, std::string>& notes() const { return notes_; }

 private:
  using clock = std::chrono::steady_clock;
  std::uint64_t n_;
  const param_set& params_;
  int gpu_count_;
  std::map<std::string, double> phases_;
  std::map<std::string, std::string> notes_;
  device_memory_tracker device_memory_;
  clock::time_point total_start_{};
};

/// Times a host-side phase (e.g. `alloc`, `free`) of the current repetition with the host clock.
class host_phase {
 public:
  host_phase(run_context& ctx, std::string_view metric) : ctx_(ctx), metric_(metric), start_(std::chrono::steady_clock::now()) {}
  ~host_phase() { ctx_.add_phase(metric_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()); }
  host_phase(const host_phase&) = delete;
  host_phase& operator=(const host_phase&) = delete;

 private:
  run_context& ctx_;
  std::string_view metric_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ema
