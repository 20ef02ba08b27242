// A problem whose variants misbehave on purpose — crash, abort, hang, run out of memory, throw,
// answer wrongly, exit without answering — to test that every way a point can fail is isolated
// and recorded. Linked only into tests and the test worker, never into ema.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fmt/format.h>
#include <new>
#include <stdexcept>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/registry.hpp"

namespace ema::fault {
namespace {

struct traits {
  using input = std::uint64_t;
  using output = std::uint64_t;
  static input generate(const point_request& r) { return r.n; }
  static output reference(const input& n) { return n; }
  static outcome check(const input&, const output& expected, const output& got) {
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

output busy(const input& n, run_context&) {  // a cost that grows like n: n microseconds
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(n);
  while (std::chrono::steady_clock::now() < until) {}
  return n;
}

work_model work(std::uint64_t n, const param_set&) { return {static_cast<double>(n), static_cast<double>(n)}; }

constexpr param_spec params[] = {{"mode", param_kind::choice, "a", "a test parameter", "a|b"}};

}  // namespace
}  // namespace ema::fault

EMA_PROBLEM(fault, {"fault", "variants that fail on purpose (tests only)", "a number", "tests", ema::fault::params,
                    "8", &ema::fault::kit::prepare, &ema::fault::work});
EMA_VARIANT(fault_ok, {"fault", "ok", ema::backend::seq, "answers correctly", "test", &ema::fault::kit::run<&ema::fault::ok>});
EMA_VARIANT(fault_wrong, {"fault", "wrong", ema::backend::seq, "answers wrongly", "test", &ema::fault::kit::run<&ema::fault::wrong>});
EMA_VARIANT(fault_crash, {"fault", "crash", ema::backend::seq, "segmentation fault", "test", &ema::fault::kit::run<&ema::fault::crash>});
EMA_VARIANT(fault_abort, {"fault", "abort", ema::backend::seq, "calls abort()", "test", &ema::fault::kit::run<&ema::fault::abort_now>});
EMA_VARIANT(fault_hang, {"fault", "hang", ema::backend::seq, "never returns", "test", &ema::fault::kit::run<&ema::fault::hang>});
EMA_VARIANT(fault_oom, {"fault", "oom", ema::backend::seq, "device memory exhausted", "test", &ema::fault::kit::run<&ema::fault::oom>});
EMA_VARIANT(fault_bad_alloc, {"fault", "bad-alloc", ema::backend::seq, "host memory exhausted", "test", &ema::fault::kit::run<&ema::fault::bad_alloc>});
EMA_VARIANT(fault_throws, {"fault", "throws", ema::backend::seq, "throws an exception", "test", &ema::fault::kit::run<&ema::fault::throws>});
EMA_VARIANT(fault_exit, {"fault", "exit", ema::backend::seq, "exits without an answer", "test", &ema::fault::kit::run<&ema::fault::silent_exit>});
EMA_VARIANT(fault_flaky, {"fault", "flaky", ema::backend::seq, "goes wrong after a few runs", "test", &ema::fault::kit::run<&ema::fault::flaky>});
EMA_VARIANT(fault_phases, {"fault", "phases", ema::backend::seq, "reports a kernel phase and a note", "test", &ema::fault::kit::run<&ema::fault::phases>});
EMA_VARIANT(fault_busy, {"fault", "busy", ema::backend::seq, "busy for n microseconds", "test", &ema::fault::kit::run<&ema::fault::busy>});
EMA_VARIANT(fault_gpu, {"fault", "gpu", ema::backend::cuda, "needs a CUDA device", "test", &ema::fault::kit::run<&ema::fault::ok>});
