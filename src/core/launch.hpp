// Launch settings: each kernel's geometry and tuning knobs (threads per block, blocks, panel
// width ...) as a named struct, chosen by its variant from the device, the size and the
// parameters, never literals at the launch site. Every field is recorded with the point as the
// note `launch.<field>` (so an analysis can attribute a result to it) and can be overridden with
// `--param launch.<field>=V` (checked against the field's range when the plan is made), so that a
// sweep can explore it. A settings struct declares its fields and hands out its members:
//
//   struct scan_launch {
//     int blocks = 1, threads = 256;
//     static constexpr launch_field fields[] = {{"blocks", "...", 1, 1 << 30}, {"threads", "...", 32, 256, 32}};
//     std::array<int*, 2> members() { return {&blocks, &threads}; }
//   };
//   auto l = ctx.launch(choose_scan_launch(device, n));  // overrides applied, notes recorded
//
// and its variant names the fields in its descriptor (`.launch = scan_launch::fields`).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_device.hpp"

namespace ema {

struct launch_field {
  const char* name;  ///< the note `launch.<name>` and the parameter `launch.<name>=V`
  const char* help;  ///< one line: what it sets, and how ema chooses it
  std::int64_t min = 1;
  std::int64_t max = std::numeric_limits<std::int32_t>::max();
  std::int64_t multiple = 1;  ///< the value must be a multiple of this (a warp: 32)
};

/// The prefix of a launch setting's note and parameter.
inline constexpr std::string_view launch_prefix = "launch.";

/// The launch setting every OpenMP variant has beside its own (issue 32, item 1): the threads it
/// runs on, set by the worker before the variant runs (omp_set_num_threads), so that `--param
/// launch.omp_threads=1..16` (or `ema run --threads 1..16`) is a processor axis; named apart from a
/// CUDA variant's `launch.threads` (threads per block). Its upper bound is the CPUs the process may
/// run on, checked when the plan is made (runner/plan.cpp).
inline constexpr launch_field openmp_threads_field = {"omp_threads", "OpenMP threads it runs on (ema: every CPU the process may use)", 1, 1 << 16};

/// The launch setting every single-GPU CUDA variant has beside its own (issue 32, item 1): the
/// streaming multiprocessors it runs on, through a CUDA green context made current by the worker
/// before the input is built and the variant runs (measure/gpu.hpp restrict_sms), so that `--param
/// launch.sms=8..132*2` (or `ema run --sms`) is a processor axis on one GPU. Its bounds are the
/// device's SM count and its partition granularity, checked when the plan is made (runner/plan.cpp).
/// The launch setting every multi-GPU variant has beside its own (issue 32, item 1): how many of
/// the machine's GPUs it splits the work over (devices 0..k-1), so that `--param launch.gpus=1,2`
/// (or `ema run --gpus`) is a processor axis; at most the devices there are, checked when the plan
/// is made (runner/plan.cpp).
inline constexpr launch_field gpus_field = {"gpus", "GPUs it splits the work over, devices 0..k-1 (ema: every device)", 1, 64};

/// The placement of an OpenMP variant's threads (issue 32, item 1), beside their count: OpenMP's
/// binding policy, `launch.omp_bind=close|spread|primary|false` (or `ema run --bind`). OpenMP reads
/// it once, as a process starts, so the sweep sets it in the worker's environment (OMP_PROC_BIND,
/// and OMP_PLACES=cores where the user set no places) and the worker checks that the runtime took
/// it; the policy and the places the runtime read are recorded with every OpenMP point either way.
inline constexpr std::string_view openmp_bind_name = "omp_bind";
inline constexpr std::string_view openmp_bind_values[] = {"close", "spread", "primary", "false"};

/// A placement checked: usage_error naming the variant and the policies there are.
void check_bind_value(std::string_view variant, std::string_view value);

/// The environment a worker running with placement `value` needs ("OMP_PROC_BIND=close",
/// "OMP_PLACES=cores" unless `user_places` names the user's own).
std::vector<std::string> bind_environment(std::string_view value, bool user_places);

inline constexpr launch_field sm_field = {"sms", "streaming multiprocessors it runs on, through a CUDA green context (ema: all of the device's)", 1,
                                          1 << 12};

class param_set;

/// ⌈a / b⌉ for b > 0: the tiles, blocks or waves that cover `a` items `b` at a time.
template <class A, class B>
EMA_HD constexpr A ceil_div(A a, B b) {
  return static_cast<A>((a + static_cast<A>(b) - 1) / static_cast<A>(b));
}

/// The grid that covers `items` with blocks of `per_block` (threads, or items a block takes): at
/// least one block (a kernel launched over nothing still runs its bookkeeping), at most
/// `max_blocks` (a grid-stride kernel covers the rest). The one place ema sizes a grid.
EMA_HD constexpr unsigned grid_for(std::uint64_t items, std::uint64_t per_block, std::uint64_t max_blocks = 0x7fffffffu) {
  const std::uint64_t blocks = ceil_div(items, per_block);
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > max_blocks ? max_blocks : blocks);
}

/// An override's value checked against its field: usage_error naming the setting, the variant and
/// what it must be.
std::int64_t check_launch_value(const launch_field& f, std::string_view variant, std::string_view value);

/// Sets each member whose field `params` overrides (`launch.<field>=V`, checked against the field).
void apply_overrides(std::span<const launch_field> fields, std::span<int* const> members, const param_set& params);

/// `s` with the overrides of `params` applied, nothing recorded: how a variant's launch_refuses
/// (core/problem.hpp) sees the settings a point would run with, before it runs.
template <class Settings>
Settings with_overrides(Settings s, const param_set& params) {
  const auto m = s.members();
  apply_overrides(Settings::fields, std::span<int* const>(m.data(), m.size()), params);
  return s;
}

}  // namespace ema
