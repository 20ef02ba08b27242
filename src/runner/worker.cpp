#include "runner/worker.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <sys/resource.h>
#include <fmt/format.h>
#include <iostream>
#include <iterator>
#include <new>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/errors.hpp"
#include "core/launch.hpp"
#include "core/registry.hpp"
#include "core/status.hpp"
#include "core/text.hpp"
#include "measure/energy.hpp"
#include "measure/gpu.hpp"
#include "measure/probe.hpp"
#include "measure/stats.hpp"
#include "runner/isolate.hpp"
#include "runner/plan.hpp"

namespace ema {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

// The answer goes to fd 3 when the parent opened it, else to stdout (a worker run by hand).
void write_answer(const nlohmann::json& answer) {
  auto text = json_text(answer);
  int fd = fcntl(3, F_GETFD) != -1 ? 3 : 1;
  const char* p = text.data();
  std::size_t left = text.size();
  while (left) {
    auto k = write(fd, p, left);
    if (k <= 0) break;
    p += k;
    left -= static_cast<std::size_t>(k);
  }
}

// A serving worker's answer: one frame on fd 3 (runner/isolate.hpp frame).
void write_answer_frame(const nlohmann::json& answer) {
  const auto text = frame(json_text(answer));
  const char* p = text.data();
  std::size_t left = text.size();
  while (left) {
    const auto k = write(3, p, left);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) std::_Exit(3);  // ema has gone: nothing is left to answer
    p += k;
    left -= static_cast<std::size_t>(k);
  }
}

// The energy meters for a point: the GPU boards it uses, the CPU package and DRAM.
// `off` says why when the plan measures no energy at this point.
std::vector<energy_source> open_meters(const variant_desc& v, int gpus, bool enabled, const std::string& off_reason) {
  if (!enabled) {
    std::vector<energy_source> off;
    for (const char* m : {"energy_gpu", "energy_cpu", "energy_dram"}) off.push_back({m, off_reason, {}, 0});
    return off;
  }
  std::vector<std::string> pci;
  for (int d = 0; d < gpus; ++d) pci.push_back(gpu::query().devices[static_cast<std::size_t>(d)].pci_bus_id);
  return open_energy_sources(pci, uses_gpu(v.backend) ? gpu::query().unavailable : "not measured: the variant uses no GPU");
}

// Idle power of the sources in open_meters' order, from the parent's measurement before the sweep.
std::vector<double> idle_watts(const nlohmann::json& idle, int gpus) {
  const double nan = std::nan("");
  double gpu_w = gpus ? 0.0 : nan;
  for (int d = 0; d < gpus; ++d) {
    auto per = idle.value("energy_gpu", nlohmann::json::array());
    gpu_w += d < static_cast<int>(per.size()) && per[static_cast<std::size_t>(d)].is_number() ? per[static_cast<std::size_t>(d)].get<double>() : nan;
  }
  auto scalar = [&](const char* k) { return idle.contains(k) && idle[k].is_number() ? idle[k].get<double>() : nan; };
  return {gpu_w, scalar("energy_cpu"), scalar("energy_dram")};
}

}  // namespace

namespace {

/// A point being measured: its variant, input and context, and what it has gathered.
struct measuring {
  const point_spec& spec;
  const variant_desc& variant;
  workload& work;
  run_context& ctx;
  point_answer& answer;
  int gpus = 0;
  std::map<std::string, std::vector<double>> samples;
  outcome last;

  void fail(point_status s, const std::string& why) {
    answer.status = std::string(to_string(s));
    answer.reason = why;
  }
  /// One checked run.
  bool once() {
    ctx.begin_repetition();
    last = variant.run(work, ctx);
    if (!last.verified) fail(point_status::unverified, last.reason);
    return last.verified;
  }
};

/// The energy window, on its own: runs back to back without their checks, so the meter sees the
/// variant and not the verifier (whose pass over the output can take longer than a GPU run); the
/// last run's output is checked once the window is closed. The window starts and ends on counter
/// updates, unless each run is long next to the update period. False when that output is wrong.
bool energy_window(measuring& m, const std::vector<energy_source>& meters, double slowest_update) {
  const double window = m.spec.energy.window;
  wait_for_counter_update(meters);
  const auto e0 = read_all(meters);
  const auto t0 = clock_type::now();
  int window_reps = 0;
  std::optional<std::vector<double>> mark;
  while (true) {
    const auto rep_start = clock_type::now();
    m.ctx.begin_repetition();
    m.variant.run_unchecked(m.work, m.ctx);
    const double rep_time = seconds_since(rep_start);
    ++window_reps;
    if (seconds_since(t0) < window) continue;
    if (rep_time >= 10 * slowest_update) break;
    if (!mark)
      mark = read_all(meters);
    else if (counters_moved(meters, *mark))
      break;
  }
  const auto e1 = read_all(meters);
  const double span = seconds_since(t0);
  m.last = m.variant.check_last(m.work);
  if (!m.last.verified) {
    m.fail(point_status::unverified, m.last.reason);
    return false;
  }
  const auto idle = idle_watts(m.spec.idle, m.gpus);
  for (std::size_t i = 0; i < meters.size(); ++i) {
    if (!meters[i].read) continue;
    const double per_op = (e1[i] - e0[i]) / window_reps;
    m.samples[meters[i].metric].push_back(per_op);
    const auto above = meters[i].metric + "_above_idle";
    if (std::isnan(idle[i]))
      m.answer.unavailable[above] = "idle power was not measured";
    else
      m.samples[above].push_back(per_op - idle[i] * span / window_reps);
  }
  m.answer.notes["energy_window_s"] = span;
  m.answer.notes["energy_window_reps"] = window_reps;
  return true;
}

/// The warm-up runs, the timed repetitions (each checked) until the policy is satisfied, and the
/// energy window where a meter reads. False when a run's output is wrong.
bool measure(measuring& m) {
  const auto& policy = m.spec.repetitions;
  bool ok = true;
  for (int i = 0; i < policy.warmup && ok; ++i) ok = m.once();
  auto meters = open_meters(m.variant, m.gpus, m.spec.energy.enabled, m.spec.energy.off);
  bool metering = false;
  double slowest_update = 0;
  for (const auto& meter : meters) {
    if (meter.read)
      metering = true, slowest_update = std::max(slowest_update, meter.update_period);
    else
      m.answer.unavailable[meter.metric] = meter.unavailable;
  }
  const auto timing_start = clock_type::now();
  while (ok) {
    if (!(ok = m.once())) break;
    for (const auto& [metric, value] : m.ctx.phases()) m.samples[metric].push_back(value);
    if (policy.satisfied(m.samples["total"], seconds_since(timing_start))) break;
  }
  if (ok && metering) ok = energy_window(m, meters, slowest_update);
  return ok;
}

/// The point: its input prepared, measured, its samples and notes in `answer`.
void run_variant(const point_spec& spec, point_answer& answer) {
  auto fail = [&](point_status s, const std::string& why) {
    answer.status = std::string(to_string(s));
    answer.reason = why;
  };
  const auto& problem = find_problem(spec.problem);
  const auto& variant = find_variant(problem.name, spec.variant);
  // Stored with the point, so a report reads the same speedups in every build of ema.
  answer.notes["algorithm"] = variant.algorithm;
  answer.notes["role"] = std::string(to_string(variant.role));
  if (auto a = available(variant.backend); !a.ok) return fail(point_status::skipped, a.reason);
  const auto n = spec.n;
  param_map pm(spec.params.begin(), spec.params.end());
  const auto params = param_set::from_map(std::move(pm));
  if (variant.not_applicable)
    if (const char* why = variant.not_applicable(params, n)) return fail(point_status::skipped, why);
  int gpus = devices_used(variant.backend, gpu::device_count());
  // The GPUs of a multi-GPU variant (core/launch.hpp gpus_field): devices 0..k-1.
  if (variant.backend == backend::multi_gpu) {
    const std::string key = fmt::format("{}{}", launch_prefix, gpus_field.name);
    if (auto it = params.values().find(key); it != params.values().end()) {
      const auto k = check_launch_value(gpus_field, variant.name, it->second);
      if (k > gpus) return fail(point_status::failed, fmt::format("{}={}: this machine has {} GPUs", key, k, gpus));
      gpus = static_cast<int>(k);
    }
  }
  if (gpus) gpu::initialise(gpus);
  // The SMs of a CUDA variant (core/launch.hpp sm_field): a green context of that many SMs, current
  // before the input is built and the variant runs; a count the device cannot give fails the point
  // with why (the plan checked it against the device already).
  std::optional<std::int64_t> sms_held;
  if (variant.backend == backend::cuda) {
    const std::string key = fmt::format("{}{}", launch_prefix, sm_field.name);
    if (auto it = params.values().find(key); it != params.values().end()) {
      const auto sms = check_launch_value(sm_field, variant.name, it->second);
      try {
        sms_held = gpu::restrict_sms(0, static_cast<int>(sms));
      } catch (const std::runtime_error& e) {
        return fail(point_status::failed, fmt::format("{}={}: no green context of {} SMs: {}", key, sms, sms, e.what()));
      }
      if (*sms_held != sms)
        return fail(point_status::failed, fmt::format("{}={}: the device's green context holds {} SMs, not {}", key, sms, *sms_held, sms));
    }
  }
  point_request request{n, &params, spec.seed, gpus ? host_memory_kind::pinned : host_memory_kind::pageable};
  request.cache_dir = spec.cache_dir;
  request.cache_cap = spec.cache_cap;
  std::map<std::string, std::string> input_notes;
  request.notes = &input_notes;
  auto work = problem.prepare(request);
  for (const auto& [k, v] : input_notes) answer.notes[k] = v;
  run_context ctx(n, params, gpus);
  if (sms_held) ctx.note(fmt::format("{}{}", launch_prefix, sm_field.name), *sms_held);
#ifdef _OPENMP
  // The processor axis of an OpenMP variant (core/launch.hpp openmp_threads_field), set after its
  // input was built with every thread and before it runs.
  if (variant.backend == backend::omp) {
    const std::string key = fmt::format("{}{}", launch_prefix, openmp_threads_field.name);
    if (auto it = params.values().find(key); it != params.values().end()) {
      const auto threads = check_launch_value(openmp_threads_field, variant.name, it->second);
      omp_set_num_threads(static_cast<int>(threads));
      ctx.note(key, threads);
    }
    // Where the threads run (issue 32, item 1: placement recorded): OpenMP's binding policy
    // (OMP_PROC_BIND) and its places (OMP_PLACES), as the runtime reads them.
    static constexpr const char* binds[] = {"false", "true", "primary", "close", "spread"};
    const auto bind = static_cast<int>(omp_get_proc_bind());
    const std::string taken = bind >= 0 && bind < 5 ? binds[bind] : "unknown";
    ctx.note("omp_proc_bind", taken);
    ctx.note("omp_places", static_cast<std::int64_t>(omp_get_num_places()));
    // A placement asked for (launch.omp_bind, set in this process's environment by the sweep): the
    // runtime must have taken it, else the point would be measured under another placement.
    const std::string bind_key = fmt::format("{}{}", launch_prefix, openmp_bind_name);
    if (auto it = params.values().find(bind_key); it != params.values().end()) {
      check_bind_value(variant.name, it->second);
      if (taken != it->second)
        return fail(point_status::failed,
                    fmt::format("{}={}: the OpenMP runtime runs with binding '{}' (OMP_PROC_BIND={}): placement is set in the worker's "
                                "environment by `ema run`",
                                bind_key, it->second, taken, std::getenv("OMP_PROC_BIND") ? std::getenv("OMP_PROC_BIND") : "unset"));
      ctx.note(bind_key, it->second);
    }
  }
#endif
  measuring m{spec, variant, *work, ctx, answer, gpus, {}, {}};
  const bool ok = measure(m);
  if (gpus) m.samples["device_peak"].push_back(static_cast<double>(ctx.device_memory().peak()));
  for (const auto& [k, v] : ctx.notes()) answer.notes[k] = v;
  answer.samples = std::move(m.samples);
  answer.verified = ok;
  if (!m.last.result_json.empty()) answer.result = nlohmann::json::parse(m.last.result_json, nullptr, false);
}

}  // namespace

point_answer run_point(const point_spec& spec) {
  point_answer answer;
  auto fail = [&](point_status s, const std::string& why) {
    answer.status = std::string(to_string(s));
    answer.reason = why;
  };
  try {
    run_variant(spec, answer);
  } catch (const output_error& e) {  // the run's error: the sweep stops, the point is not recorded
    answer.output_error = e.what();
    fail(point_status::failed, e.what());
  } catch (const out_of_memory& e) {
    fail(point_status::oom, e.what());
  } catch (const std::bad_alloc&) {
    fail(point_status::oom, "host memory exhausted (std::bad_alloc)");
  } catch (const std::exception& e) {
    fail(point_status::failed, e.what());
  }
  return answer;
}

int worker_main() {
  std::string input{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  const auto j = nlohmann::json::parse(input, nullptr, false);
  if (j.is_discarded()) {
    std::cerr << "ema worker: the point specification on stdin is not JSON\n";
    return 2;
  }
  point_spec spec;
  try {
    spec = spec_from_json(j);
  } catch (const std::invalid_argument& e) {
    std::cerr << "ema worker: the point specification on stdin: " << e.what() << "\n";
    return 2;
  }
  write_answer(to_json(run_point(spec)));
  return 0;
}

namespace {

/// Reads exactly `size` bytes of stdin; false at EOF or an error before they came.
bool read_exactly(char* to, std::size_t size) {
  while (size) {
    const auto k = read(0, to, size);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    to += k;
    size -= static_cast<std::size_t>(k);
  }
  return true;
}

/// The next request frame on stdin (runner/isolate.hpp frame): nullopt at EOF before it starts;
/// std::runtime_error for a malformed or cut one.
std::optional<std::string> read_request() {
  std::string digits;
  for (char c;;) {
    if (!read_exactly(&c, 1)) {
      if (digits.empty()) return std::nullopt;
      throw std::runtime_error("the request frame ends inside its length");
    }
    if (c == '\n') break;
    if (c < '0' || c > '9' || digits.size() >= 9) throw std::runtime_error("a request frame does not start with its length and a newline");
    digits += c;
  }
  if (digits.empty()) throw std::runtime_error("a request frame does not start with its length and a newline");
  constexpr std::size_t most = std::size_t{64} << 20;  // a point's specification is a few KiB
  const auto length = std::stoul(digits);
  if (length > most)
    throw std::runtime_error(fmt::format("a request frame of {} bytes is over the {} MiB a specification may take", length, most >> 20));
  std::string body(length, '\0');
  if (!read_exactly(body.data(), body.size())) throw std::runtime_error("the request frame ends before its length");
  return body;
}

/// Resets this process's peak resident memory to its current size (Linux's clear_refs "5"); why
/// not, where it cannot.
std::string reset_peak_rss() {
  const int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fmt::format("its peak memory cannot be reset (/proc/self/clear_refs: {})", std::strerror(errno));
  const bool ok = write(fd, "5", 1) == 1;
  const int error = errno;
  close(fd);
  return ok ? std::string() : fmt::format("its peak memory cannot be reset (/proc/self/clear_refs: {})", std::strerror(error));
}

/// This process's peak resident memory (VmHWM) in bytes; nullopt where /proc cannot be read.
std::optional<double> peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) * 1024.0;
  return std::nullopt;
}

double cpu_seconds_now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

int worker_serve() {
  if (fcntl(3, F_GETFD) == -1) {
    std::cerr << "ema worker: --serve answers on file descriptor 3, which is not open\n";
    return 2;
  }
  for (int served = 0;;) {
    std::optional<std::string> request;
    try {
      request = read_request();
    } catch (const std::exception& e) {
      std::cerr << "ema worker: " << e.what() << "\n";
      return 2;
    }
    if (!request) return 0;
    const auto j = nlohmann::json::parse(*request, nullptr, false);
    point_spec spec;
    try {
      if (j.is_discarded()) throw std::invalid_argument("it is not JSON");
      spec = spec_from_json(j);
    } catch (const std::invalid_argument& e) {
      std::cerr << "ema worker: the point specification: " << e.what() << "\n";
      return 2;
    }
    // The first point's peak is the process's own from its start, reset or not.
    const auto unreset = reset_peak_rss();
    const double cpu_before = cpu_seconds_now();
    auto answer = run_point(spec);
    answer.cpu_seconds = cpu_seconds_now() - cpu_before;
    ++served;
    if (const auto peak = peak_rss_bytes())
      answer.samples["host_peak_rss"] = {*peak};
    else
      answer.retire = "its peak memory cannot be read (/proc/self/status)";
    if (!unreset.empty() && answer.retire.empty()) answer.retire = unreset;
    answer.notes["worker"] = {{"pid", static_cast<std::int64_t>(getpid())}, {"point", served}};
    write_answer_frame(to_json(answer));
  }
}

int probe_main() {
  try {
    write_answer(measure_ceilings([](const std::string& step) { std::cerr << "probe: " << step << "\n"; }));
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "probe failed: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace ema
