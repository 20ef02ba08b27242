// A problem whose variants misbehave on purpose — crash, abort, hang, run out of memory, throw,
// answer wrongly, exit without answering — to test that every way a point can fail is isolated
// and recorded. Linked only into tests and the test worker, never into ema.
#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fmt/format.h>
#include <new>
#include <stdexcept>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/registry.hpp"

namespace ema::fault {
namespace {

/// Busy for `us` microseconds.
void busy_for(std::uint64_t us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

/// n, and how long the check takes (the parameter check_us): a check slower than the run, as the
/// sort's is next to a GPU sort.
struct number {
  std::uint64_t n = 0, check_us = 0;
  operator std::uint64_t() const { return n; }
};

struct traits {
  static constexpr const char* name = "fault";
  using input = number;
  using output = std::uint64_t;
  static input generate(const point_request& r) { return {r.n, static_cast<std::uint64_t>(r.params->integer("check_us"))}; }
  static output reference(const input& n) { return n; }
  static outcome check(const input& in, const output& expected, const output& got) {
    busy_for(in.check_us);
    outcome o;
    o.verified = got == expected;
    if (!o.verified) o.reason = fmt::format("returned {}, expected {}", got, expected);
    o.result_json = fmt::format("{{\"value\":{}}}", got);
    return o;
  }
};
using kit = problem_kit<traits>;
using input = traits::input;
using output = traits::output;

output ok(const input& n, run_context&) { return n; }
output wrong(const input& n, run_context&) { return n + 1; }
output crash(const input&, run_context&) {
  std::raise(SIGSEGV);
  return 0;
}
output abort_now(const input&, run_context&) {
  std::fprintf(stderr, "about to abort\n");
  std::abort();
}
output hang(const input&, run_context&) {
  for (;;) pause();
}
output oom(const input&, run_context&) { throw out_of_memory("cudaMalloc failed: out of memory (simulated)"); }
output bad_alloc(const input&, run_context&) { throw std::bad_alloc(); }
output throws(const input&, run_context&) { throw std::runtime_error("variant failed on purpose"); }
output silent_exit(const input&, run_context&) { _exit(3); }
output flaky(const input& n, run_context&) {
  static int calls = 0;
  return ++calls <= 3 ? n : n + 1;  // the warm-up and two timed runs pass, then it goes wrong
}
output phases(const input& n, run_context& ctx) {
  ctx.add_phase("kernel", 1e-6 * static_cast<double>(n));
  ctx.note("launch", "1 block");
  return n;
}

struct tile_launch {  // a launch setting, as a kernel's would be
  int threads = 256;
  static constexpr launch_field fields[] = {{"threads", "threads per block (ema: 256)", 32, 1024, 32}};
  std::array<int*, 1> members() { return {&threads}; }
};
// As a kernel's check of its geometry: more threads than the size has work for, past 1024 cells a
// thread, is refused (variant_desc::launch_refuses).
std::string launched_refuses(const param_set& p, std::uint64_t n) {
  const auto threads = with_overrides(tile_launch{}, p).threads;
  return static_cast<std::uint64_t>(threads) * 1024 < n ? "launch.threads = " + std::to_string(threads) + " is too few for n" : std::string();
}
output launched(const input& n, run_context& ctx) {
  if (const auto why = launched_refuses(ctx.params(), ctx.n()); !why.empty()) throw usage_error(why);
  ctx.launch(tile_launch{});
  return n;
}

output busy(const input& n, run_context&) {  // a cost that grows like n: n microseconds
  busy_for(n);
  return n;
}
output cliff(const input& n, run_context&) {  // n microseconds, then from n = 4096 a cost no growth foresaw
  if (n >= 4096)
    for (;;) pause();
  busy_for(n);
  return n;
}

// n microseconds, with a kernel phase that stays at `knee` microseconds below n = knee and grows
// like n above it: a GPU kernel's launch-bound start under a total time that grows throughout.
// With trap=1 it hangs at a size that is not a power of 4 (never one its growth 4x a step from a
// power of 4 measures): a point far costlier than its track's points predicted.
// With scatter=S the kernel phase departs from that by a fixed pseudo-random S% at each size (a
// GPU kernel's scatter between sizes, which repeats from one round of the same sizes to the next).
double departure(std::uint64_t n) {  // in [-1, 1), a function of n alone
  std::uint32_t x = static_cast<std::uint32_t>((n + 2) * 2654435761u);
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return static_cast<double>(x) / 0x1p32 * 2 - 1;
}

output knee(const input& n, run_context& ctx) {
  if (const std::uint64_t size = n; ctx.params().integer("trap") && std::has_single_bit(size) && std::countr_zero(size) % 2 == 1)
    for (;;) pause();
  busy_for(n);
  const double scatter = 1 + 0.01 * static_cast<double>(ctx.params().integer("scatter")) * departure(n);
  ctx.add_phase("kernel", 1e-6 * scatter * static_cast<double>(std::max<std::uint64_t>(n, static_cast<std::uint64_t>(ctx.params().integer("knee")))));
  return n;
}

work_model work(std::uint64_t n, const param_set&) { return {static_cast<double>(n), static_cast<double>(n)}; }

constexpr param_spec params[] = {{"mode", param_kind::choice, "a", "a test parameter", "a|b"},
                                 {"k", param_kind::integer, "1", "a tuning parameter only `launched` reads", nullptr, true},
                                 {"check_us", param_kind::integer, "0", "microseconds the check takes"},
                                 {"knee", param_kind::integer, "0", "the n below which `knee`'s kernel phase is flat"},
                                 {"trap", param_kind::integer, "0", "1: `knee` hangs at the powers of two that are not powers of 4"},
                                 {"scatter", param_kind::integer, "0", "`knee`'s kernel phase departs by this percent, fixed at each size"}};
constexpr const char* launched_tuning[] = {"k"};

}  // namespace
}  // namespace ema::fault

EMA_PROBLEM(fault, ema::fault::kit::problem({.title = "variants that fail on purpose (tests only)",
                                             .size_meaning = "a number",
                                             .source = "tests",
                                             .params = ema::fault::params,
                                             .default_sizes = "8",
                                             .default_sizes_gpu = "8,32",
                                             .reference_variant = "ok",
                                             .work = &ema::fault::work}));
EMA_VARIANT(fault_ok, ema::fault::kit::variant<&ema::fault::ok>({.name = "ok",
                                                                 .backend = ema::backend::seq,
                                                                 .role = ema::variant_role::ours,
                                                                 .description = "answers correctly",
                                                                 .provenance = "test"}));
EMA_VARIANT(fault_wrong, ema::fault::kit::variant<&ema::fault::wrong>({.name = "wrong",
                                                                       .backend = ema::backend::seq,
                                                                       .role = ema::variant_role::ours,
                                                                       .description = "answers wrongly",
                                                                       .provenance = "test"}));
EMA_VARIANT(fault_crash, ema::fault::kit::variant<&ema::fault::crash>({.name = "crash",
                                                                       .backend = ema::backend::seq,
                                                                       .role = ema::variant_role::ours,
                                                                       .description = "segmentation fault",
                                                                       .provenance = "test"}));
EMA_VARIANT(fault_abort, ema::fault::kit::variant<&ema::fault::abort_now>({.name = "abort",
                                                                           .backend = ema::backend::seq,
                                                                           .role = ema::variant_role::ours,
                                                                           .description = "calls abort()",
                                                                           .provenance = "test"}));
EMA_VARIANT(fault_cliff, ema::fault::kit::variant<&ema::fault::cliff>({.name = "cliff",
                                                                       .backend = ema::backend::seq,
                                                                       .role = ema::variant_role::ours,
                                                                       .description = "n microseconds, never returning from n = 4096",
                                                                       .provenance = "test"}));
EMA_VARIANT(fault_hang, ema::fault::kit::variant<&ema::fault::hang>({.name = "hang",
                                                                     .backend = ema::backend::seq,
                                                                     .role = ema::variant_role::ours,
                                                                     .description = "never returns",
                                                                     .provenance = "test"}));
EMA_VARIANT(fault_oom, ema::fault::kit::variant<&ema::fault::oom>({.name = "oom",
                                                                   .backend = ema::backend::seq,
                                                                   .role = ema::variant_role::ours,
                                                                   .description = "device memory exhausted",
                                                                   .provenance = "test"}));
EMA_VARIANT(fault_bad_alloc, ema::fault::kit::variant<&ema::fault::bad_alloc>({.name = "bad-alloc",
                                                                               .backend = ema::backend::seq,
                                                                               .role = ema::variant_role::ours,
                                                                               .description = "host memory exhausted",
                                                                               .provenance = "test"}));
EMA_VARIANT(fault_throws, ema::fault::kit::variant<&ema::fault::throws>({.name = "throws",
                                                                         .backend = ema::backend::seq,
                                                                         .role = ema::variant_role::ours,
                                                                         .description = "throws an exception",
                                                                         .provenance = "test"}));
EMA_VARIANT(fault_exit, ema::fault::kit::variant<&ema::fault::silent_exit>({.name = "exit",
                                                                            .backend = ema::backend::seq,
                                                                            .role = ema::variant_role::ours,
                                                                            .description = "exits without an answer",
                                                                            .provenance = "test"}));
EMA_VARIANT(fault_flaky, ema::fault::kit::variant<&ema::fault::flaky>({.name = "flaky",
                                                                       .backend = ema::backend::seq,
                                                                       .role = ema::variant_role::ours,
                                                                       .description = "goes wrong after a few runs",
                                                                       .provenance = "test"}));
EMA_VARIANT(fault_phases, ema::fault::kit::variant<&ema::fault::phases>({.name = "phases",
                                                                         .backend = ema::backend::seq,
                                                                         .role = ema::variant_role::ours,
                                                                         .description = "reports a kernel phase and a note",
                                                                         .provenance = "test"}));
EMA_VARIANT(fault_launched, ema::fault::kit::variant<&ema::fault::launched>({.name = "launched",
                                                                             .backend = ema::backend::seq,
                                                                             .role = ema::variant_role::ours,
                                                                             .description = "records a launch setting",
                                                                             .provenance = "test",
                                                                             .launch = ema::fault::tile_launch::fields,
                                                                             .launch_refuses = &ema::fault::launched_refuses,
                                                                             .tuning = ema::fault::launched_tuning}));
EMA_VARIANT(fault_busy, ema::fault::kit::variant<&ema::fault::busy>({.name = "busy",
                                                                     .backend = ema::backend::seq,
                                                                     .role = ema::variant_role::ours,
                                                                     .description = "busy for n microseconds",
                                                                     .provenance = "test"}));
EMA_VARIANT(fault_knee, ema::fault::kit::variant<&ema::fault::knee>({.name = "knee",
                                                                     .backend = ema::backend::seq,
                                                                     .role = ema::variant_role::ours,
                                                                     .description = "busy for n microseconds; a kernel phase flat below n = knee",
                                                                     .provenance = "test"}));
EMA_VARIANT(fault_gpu, ema::fault::kit::variant<&ema::fault::ok>({.name = "gpu",
                                                                  .backend = ema::backend::cuda,
                                                                  .role = ema::variant_role::ours,
                                                                  .description = "needs a CUDA device",
                                                                  .provenance = "test"}));
