#include "runner/sweep.hpp"

#include "analysis/work_model.hpp"

#include "runner/protocol.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <string_view>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <csignal>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include "analysis/analyze.hpp"
#include "core/launch.hpp"
#include "core/text.hpp"
#include "core/format.hpp"
#include "core/registry.hpp"
#include "measure/gpu.hpp"
#include "measure/memory.hpp"
#include "measure/nvml.hpp"
#include "measure/stats.hpp"
#include "runner/calibrate.hpp"
#include "runner/external.hpp"
#include "runner/isolate.hpp"
#include "runner/node.hpp"
#include "store/remeasured.hpp"

namespace ema {
namespace {

/// The K of a point's phase "round K" (`--rounds`, plan.hpp add_rounds); nullopt for any other
/// phase, a stored plan's damaged one included.
std::optional<int> round_of(const std::string& phase) {
  constexpr std::string_view prefix = "round ";
  if (!phase.starts_with(prefix)) return std::nullopt;
  int k = 0;
  const char* end = phase.data() + phase.size();
  const auto [at, ec] = std::from_chars(phase.data() + prefix.size(), end, k);
  if (ec != std::errc() || at != end || k < 2) return std::nullopt;
  return k;
}

std::string with_stderr(std::string reason, const std::string& tail) {
  auto t = output_tail(tail);
  if (!t.empty()) reason += "; stderr: " + t;
  return reason;
}

std::string format_eta(double seconds) {
  if (!(seconds >= 0) || seconds > 1e6) return "?";
  auto s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace

void note_host_load(point_record& r, const std::optional<host_load>& load) {
  if (!load) return;
  auto notes = nlohmann::json::parse(r.notes_json.empty() ? "{}" : r.notes_json, nullptr, false);
  if (!notes.is_object()) notes = nlohmann::json::object();
  notes["host_load"] = load->to_json();
  if (auto why = disturbance(*load); !why.empty()) notes["disturbed"] = why;
  r.notes_json = json_text(notes);
}

void interpret_child(const child_outcome& child, double timeout, point_record& r, std::string* output_failure, point_answer* answer_out) {
  if (!child.answered) r.samples["host_peak_rss"] = {static_cast<double>(child.max_rss_kib) * 1024.0};  // a kept worker's answer has its own
  if (!child.output_problem.empty()) {
    r.status = point_status::failed;
    r.reason = with_stderr("the worker was stopped: " + child.output_problem, child.stderr_tail);
    return;
  }
  if (child.timed_out) {
    r.status = point_status::timeout;
    r.reason = with_stderr(fmt::format("exceeded the per-point timeout of {:g} s", timeout), child.stderr_tail);
    return;
  }
  if (!child.exited && !child.answered) {
    const double rss = static_cast<double>(child.max_rss_kib) * 1024.0;
    if (child.signal == SIGKILL && rss > 0.5 * static_cast<double>(total_memory_bytes())) {
      r.status = point_status::oom;
      r.reason = fmt::format("killed by SIGKILL at {:.1f} GiB resident: the kernel's out-of-memory killer", rss / (1u << 30));
    } else {
      r.status = point_status::crashed;
      r.reason = with_stderr("killed by " + describe_signal(child.signal), child.stderr_tail);
    }
    return;
  }
  const auto j = nlohmann::json::parse(child.answer, nullptr, false);
  if ((!child.answered && child.exit_code != 0) || j.is_discarded() || !j.is_object()) {
    r.status = point_status::crashed;
    r.reason = with_stderr(child.answered ? std::string("the worker's answer is not a JSON object")
                                          : fmt::format("the worker exited with code {} without an answer", child.exit_code),
                           child.stderr_tail);
    return;
  }
  point_answer answer;
  try {
    answer = answer_from_json(j);
  } catch (const std::invalid_argument& e) {
    r.status = point_status::crashed;
    r.reason = with_stderr(fmt::format("the worker's answer is malformed: {}", e.what()), child.stderr_tail);
    return;
  }
  if (output_failure && answer.output_error) *output_failure = *answer.output_error;
  r.status = status_from_string(answer.status).value_or(point_status::failed);
  r.reason = answer.reason;
  r.verified = answer.verified;
  r.result_json = answer.result.dump();
  r.notes_json = answer.notes.dump();
  r.unavailable_json = nlohmann::json(answer.unavailable).dump();
  for (auto& [metric, values] : answer.samples) r.samples[metric] = std::move(values);
  if (answer_out) *answer_out = std::move(answer);
}

namespace {

using clock_type = std::chrono::steady_clock;

double first_sample(const point_record& r, const char* metric) {
  auto it = r.samples.find(metric);
  return it == r.samples.end() || it->second.empty() ? 0.0 : it->second.front();
}

observation observe(const point_record& r) {
  observation o;
  o.n = static_cast<double>(r.n);
  o.wall = first_sample(r, "point_wall");
  if (auto it = r.samples.find("total"); it != r.samples.end() && !it->second.empty()) {
    o.run = median(it->second);
    o.timed_runs = static_cast<int>(it->second.size());
  }
  auto notes = nlohmann::json::parse(r.notes_json, nullptr, false);
  if (notes.is_object() && notes.contains("energy_window_s") && notes["energy_window_s"].is_number())
    o.energy_span = notes["energy_window_s"].get<double>();
  o.host_bytes = first_sample(r, "host_peak_rss");
  if (auto it = r.samples.find("device_peak"); it != r.samples.end() && !it->second.empty())
    o.device_bytes = *std::max_element(it->second.begin(), it->second.end());
  return o;
}

}  // namespace

// Device memory free now on the devices a back end uses, read through NVML (no CUDA context).
static double device_free_bytes(const std::string& backend) {
  const auto& devices = gpu::query().devices;
  const int used = devices_used(backend, static_cast<int>(devices.size()));
  double free = 0;
  for (int i = 0; i < used; ++i)
    if (auto h = nvml::device_by_pci(devices[static_cast<std::size_t>(i)].pci_bus_id))
      if (auto f = nvml::free_memory_bytes(*h)) free += *f;
  return free;
}

std::string memory_refusal(const std::vector<observation>& obs, double n, const std::string& backend) {
  if (obs.empty()) return {};
  const double host = predict_bytes(obs, n, &observation::host_bytes);
  const double host_free = static_cast<double>(available_memory_bytes());
  if (host_free > 0 && host > 0.8 * host_free)
    return fmt::format("would need about {} of host memory, over 80% of the {} free", format_bytes(host), format_bytes(host_free));
  const double device = predict_bytes(obs, n, &observation::device_bytes);
  if (device <= 0) return {};
  const double device_free = device_free_bytes(backend);
  if (device_free > 0 && device > 0.8 * device_free)
    return fmt::format("would need about {} of device memory, over 80% of the {} free", format_bytes(device), format_bytes(device_free));
  return {};
}

namespace {

/// Where this process runs its points, recorded in each point's notes: the host, the GPUs it was
/// given (CUDA_VISIBLE_DEVICES, as Slurm's --gpus-per-task sets it), and inside a Slurm job its id and array task (ema merge keeps them, so a merged experiment tells its points'
/// nodes apart).
const nlohmann::json& where_points_run() {
  static const nlohmann::json where = [] {
    nlohmann::json w = nlohmann::json::object();
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0 && host[0]) w["host"] = host;
    auto env = [](const char* name) -> std::string {
      const char* v = std::getenv(name);
      return v ? v : "";
    };
    const auto array_job = env("SLURM_ARRAY_JOB_ID"), job = env("SLURM_JOB_ID"), task = env("SLURM_ARRAY_TASK_ID");
    if (!array_job.empty() || !job.empty()) w["slurm_job"] = array_job.empty() ? job : array_job;
    if (!task.empty()) w["slurm_task"] = task;
    if (const auto gpus = env("CUDA_VISIBLE_DEVICES"); !gpus.empty()) w["visible_gpus"] = gpus;  // an allocation's GPUs (--gpus-per-task)
    return w;
  }();
  return where;
}

class sweeper {
 public:
  sweeper(database& db, std::int64_t experiment, plan& p, const nlohmann::json& idle, const sweep_settings& s)
      : db_(db), experiment_(experiment), p_(p), idle_(idle), settings_(s), started_(clock_type::now()) {
    for (auto& r : db_.points(experiment_)) {
      spent_ += first_sample(r, "point_wall");
      records_.emplace(r.ordinal, std::move(r));
    }
    result_.already_done = static_cast<int>(records_.size());
  }

  sweep_result run() {
    for (const auto& pt : std::vector<plan_point>(p_.points))
      if (p_.runs(pt) && !records_.count(pt.ordinal) && !execute(pt, p_.timeout)) return finish();
    if (p_.calibrated && !calibrate()) return finish();
    return finish();
  }

 private:
  sweep_result finish() {
    if (settings_.progress == sweep_settings::progress_style::terminal) fmt::print(stderr, "\r\033[K");
    return result_;
  }

  // Runs one point and records it; false when interrupted.
  bool execute(const plan_point& pt, double timeout) {
    if (settings_.stop && settings_.stop->load()) return interrupted();
    progress(pt);
    point_record r;
    r.experiment_id = experiment_;
    r.ordinal = pt.ordinal;
    r.problem = pt.problem;
    r.variant = pt.variant;
    r.n = pt.n;
    r.params_json = pt.params.canonical_json();
    r.seed = pt.seed;
    r.instance = pt.instance;
    r.started_at = utc_now();
    bool stopped = false;
    const auto on_node = node_lock::shared();  // no probe on this node while the point runs (runner/node.hpp)
    if (p_.external) {
      run_external_point(p_, pt, timeout, settings_.stop, r, stopped);
    } else {
      run_worker_point(pt, timeout, r, stopped);
    }
    if (stopped) return interrupted();
    if (!output_failure_.empty()) {  // the run's error, not the point's: not recorded, so a resume runs it again
      result_.output_error = output_failure_;
      return interrupted();
    }
    r.finished_at = utc_now();
    if (auto notes = nlohmann::json::parse(r.notes_json, nullptr, false); notes.is_object()) {
      for (const auto& [k, v] : where_points_run().items()) notes[k] = v;  // which node, job and task (merged shards)
      if (pt.phase == "rerun") notes["rerun"] = true;                      // it replaces the earlier measurements of its point (report/view.hpp)
      if (const auto k = round_of(pt.phase)) notes["round"] = *k;          // `--rounds`: the quickest is kept
      r.notes_json = notes.dump();
    }
    db_.record_point(r);
    spent_ += first_sample(r, "point_wall");
    ++result_.run;
    if (r.status == point_status::skipped) ++result_.skipped;
    if (ends_as_planned(pt, r))
      ++(pt.phase == "settle" || pt.phase == "more-sizes" ? result_.settle_timeouts : result_.growth_timeouts);
    else if (is_failure(r.status))
      ++result_.failed;
    records_.emplace(r.ordinal, std::move(r));
    return true;
  }

  bool interrupted() {
    result_.interrupted = true;
    return false;
  }

  /// A growth or settle point past the point timeout after its track measured a smaller size
  /// (timeout_as_planned): how a calibrated track is meant to stop, not a failure.
  bool ends_as_planned(const plan_point& pt, const point_record& r) const {
    return timeout_as_planned(pt.phase, r.status, std::any_of(records_.begin(), records_.end(), [&](const auto& kv) {
                                const auto& o = kv.second;
                                return o.status == point_status::ok && o.problem == r.problem && o.variant == r.variant &&
                                       o.params_json == r.params_json && o.n < r.n;
                              }));
  }

  void run_worker_point(const plan_point& pt, double timeout, point_record& r, bool& stopped) {
    const variant_desc* v = lookup_variant(pt.problem, pt.variant);
    if (!v) {
      r.status = point_status::skipped;
      r.reason = "this build of ema has no such variant";
      return;
    }
    r.backend = to_string(v->backend);
    if (auto a = available(v->backend); !a.ok) {
      r.status = point_status::skipped;
      r.reason = a.reason;
      return;
    }
    // A calibrated sweep spends energy windows only at the sizes it keeps for them (measure_energy);
    // where no meter can be read, the worker says why.
    point_spec spec;
    spec.problem = pt.problem;
    spec.variant = pt.variant;
    spec.n = pt.n;
    for (const auto& [k, val] : pt.params.values()) spec.params[k] = val;
    spec.seed = pt.seed;
    spec.repetitions = p_.reps;
    spec.energy.enabled =
        p_.energy.enabled && (!p_.calibrated || pt.phase == "energy" || !meters_energy(track{pt.problem, pt.variant, pt.params, 0, 0, "", ""}));
    spec.energy.window = p_.energy.window;
    if (p_.energy.enabled)
      spec.energy.off = fmt::format(
          "not measured at this size: a calibrated sweep measures energy at up to {} of each variant's "
          "sizes, once they are chosen",
          p_.calibrated ? p_.calibrated->energy_sizes : 0);
    spec.idle = idle_;
    spec.cache_dir = p_.input_cache_dir;
    spec.cache_cap = p_.input_cache_cap;
    const host_load_meter meter;
    isolation how{.timeout = timeout, .stop = settings_.stop};
    // An OpenMP variant's placement (core/launch.hpp openmp_bind_name): read by the runtime as the worker starts.
    if (const auto bind = spec.params.find(fmt::format("{}{}", launch_prefix, openmp_bind_name)); bind != spec.params.end())
      how.env = bind_environment(bind->second, std::getenv("OMP_PLACES") != nullptr);
    const auto request = to_json(spec).dump();
    const bool keep = keeps_process(*v, pt);
    auto child = keep ? kept_worker(pt, how).exchange(request, timeout, settings_.stop) : run_isolated({settings_.worker, "__worker"}, request, how);
    if (child.interrupted) {
      stopped = true;
      return;
    }
    point_answer answer;
    interpret_child(child, timeout, r, &output_failure_, &answer);
    if (keep) {
      // A kept worker serves its track's next point only after a point that went well.
      const auto key = track_key(pt);
      if (!child.answered || r.status != point_status::ok || !answer.retire.empty()) kept_.erase(key);
      // Out of memory beside other kept workers, whose contexts and caches hold memory: measured
      // again alone, in a fresh process, every kept worker ended first.
      if (r.status == point_status::oom && !kept_.empty()) {
        const auto first = r.reason;
        kept_.clear();
        r.samples.clear();
        child = run_isolated({settings_.worker, "__worker"}, request, how);
        if (child.interrupted) {
          stopped = true;
          return;
        }
        interpret_child(child, timeout, r, &output_failure_, &answer);
        auto notes = nlohmann::json::parse(r.notes_json.empty() ? "{}" : r.notes_json, nullptr, false);
        if (!notes.is_object()) notes = nlohmann::json::object();
        notes["measured_alone"] = fmt::format("out of memory beside other kept workers ({}); measured again in a fresh process", first);
        r.notes_json = notes.dump();
        child.answered = false;
      }
    }
    r.samples["point_wall"] = {child.wall};
    const double cpu = child.answered && answer.cpu_seconds ? *answer.cpu_seconds : child.user + child.sys;
    note_host_load(r, meter.finish(child.wall, cpu));
  }

  /// Whether a point runs in its track's kept worker (plan::processes). Not a point measured again
  /// (`--rerun-noisy`, a round of `--rounds`: a fresh process is what they promise), a multi-GPU variant's
  /// (a context on every device it may use) nor one on a share of a GPU's SMs (a green context is
  /// made current for the rest of its process).
  bool keeps_process(const variant_desc& v, const plan_point& pt) const {
    if (p_.processes == process_policy::point) return false;
    if (pt.phase == "rerun" || round_of(pt.phase)) return false;  // measured again, each in a fresh process (--rerun-noisy, --rounds)
    if (p_.processes == process_policy::gpu_track && !uses_gpu(v.backend)) return false;
    if (v.backend == backend::multi_gpu) return false;
    return !pt.params.values().count(fmt::format("{}{}", launch_prefix, sm_field.name));
  }

  static std::string track_key(const plan_point& pt) { return pt.problem + '\n' + pt.variant + '\n' + pt.params.canonical_json(); }

  /// The track's kept worker, started where none is alive. Where kept_limit are alive already,
  /// the one used last ends: growth visits the tracks round-robin, and with more tracks than room
  /// the one used longest ago is the next one due (ending it ended every worker before its next
  /// point in a 60 s sort sweep's nine GPU tracks under a limit of 8), while the one used last is
  /// due only after all the others.
  worker_session& kept_worker(const plan_point& pt, const isolation& how) {
    const auto key = track_key(pt);
    auto it = kept_.find(key);
    if (it != kept_.end() && !it->second.session->alive()) kept_.erase(it), it = kept_.end();
    if (it == kept_.end()) {
      while (kept_.size() >= kept_limit())
        kept_.erase(std::max_element(kept_.begin(), kept_.end(), [](const auto& a, const auto& b) { return a.second.used < b.second.used; }));
      it =
          kept_.emplace(key, kept{std::make_unique<worker_session>(std::vector<std::string>{settings_.worker, "__worker", "--serve"}, how), 0}).first;
    }
    it->second.used = ++uses_;
    return *it->second.session;
  }

  void progress(const plan_point& pt) {
    using style = sweep_settings::progress_style;
    if (settings_.progress == style::none) return;
    const double elapsed = std::chrono::duration<double>(clock_type::now() - started_).count();
    if (settings_.progress == style::lines) {
      if (pt.problem == last_problem_ && elapsed - last_line_ < settings_.line_every) return;
      last_problem_ = pt.problem;
      last_line_ = elapsed;
    }
    std::string where;
    if (p_.calibrated) {
      where = fmt::format("{} of {} budget spent", format_eta(spent_), format_eta(p_.calibrated->budget));
    } else {
      const int total = p_.shard ? static_cast<int>(p_.shard->ordinals.size()) : static_cast<int>(p_.points.size());
      const int todo = total - result_.already_done;
      const double eta = result_.run ? elapsed / result_.run * (todo - result_.run) : -1;
      if (eta >= 0 || style::terminal == settings_.progress) where = fmt::format("eta {}", format_eta(eta));
    }
    const auto line =
        fmt::format("[{}/{}] {} {} n = {}{}{}{}", pt.ordinal + 1, p_.points.size(), pt.problem, pt.variant, format_size(static_cast<double>(pt.n)),
                    p_.instances > 1 ? fmt::format(" #{}", pt.instance) : "", where.empty() ? "" : ", ", where);
    if (settings_.progress == style::terminal)
      fmt::print(stderr, "\r\033[K{}", line);
    else
      fmt::print(stderr, "ema: {}\n", line);
    std::fflush(stderr);
  }

  void save_plan() { db_.set_experiment_plan(experiment_, p_.to_json()); }

  // Points of a calibrated sweep measure no energy but those of its energy phase.
  cost_policy policy() const { return {p_.reps, p_.energy.enabled && !p_.external && !p_.calibrated ? p_.energy.window : 0.0, p_.instances}; }

  // The size the track's problem takes nearest one proposed (problem_desc::size_near); empty where
  // it takes every size.
  size_snap snap_of(const track& t) const {
    const auto* problem = p_.external ? nullptr : lookup_problem(t.problem);
    if (!problem || !problem->size_near) return {};
    return [near = problem->size_near, params = t.params](std::uint64_t n) { return near(params, n); };
  }

  static bool of_track(const plan_point& pt, const track& t, const std::string& params) {
    return pt.problem == t.problem && pt.variant == t.variant && pt.params.canonical_json() == params;
  }

  // The growth points of a track that ran ok, ascending, one per size (averaged over instances),
  // and whether its latest growth point failed (with the reason). `all`: the points of every
  // phase but energy, for predictions after growth.
  std::vector<observation> growth_of(const track& t, std::string* failure, bool all = false) const {
    std::map<std::uint64_t, std::vector<observation>> by_size;
    const std::string params = t.params.canonical_json();
    for (const auto& pt : p_.points) {
      if (!of_track(pt, t, params) || (all ? pt.phase == "energy" : pt.phase != "grow")) continue;
      auto it = records_.find(pt.ordinal);
      if (it == records_.end()) continue;
      const auto& r = it->second;
      if (r.status != point_status::ok) {
        if (failure) *failure = fmt::format("n = {} ended {}: {}", r.n, to_string(r.status), r.reason);
        continue;
      }
      by_size[r.n].push_back(observe(r));
    }
    std::vector<observation> out;
    for (auto& [n, obs] : by_size) {
      observation o = obs.front();
      o.wall = 0;
      for (const auto& x : obs) o.wall += x.wall / static_cast<double>(obs.size());
      out.push_back(o);
    }
    return out;
  }

  bool run_new_points(std::size_t from, double timeout) {
    const std::vector<plan_point> added(p_.points.begin() + static_cast<std::ptrdiff_t>(from), p_.points.end());
    for (const auto& pt : added)
      if (!records_.count(pt.ordinal) && !execute(pt, timeout)) return false;
    return true;
  }

  // Grows every track one size per round until each stops, then fills its range; then the
  // energy windows and last the sizes that settle the tracks' verdicts, each with a share kept
  // back from growth from the start (the settle phase also has what the windows leave).
  bool calibrate() {
    auto& cal = *p_.calibrated;
    const double energy = energy_reserve();
    const double reserve = energy + cal.settle_share * cal.budget;
    for (;;) {
      std::vector<std::size_t> active;
      for (std::size_t i = 0; i < cal.tracks.size(); ++i)
        if (cal.tracks[i].stopped.empty()) active.push_back(i);
      if (active.empty()) break;
      for (auto i : active) {
        auto& t = cal.tracks[i];
        const double remaining = cal.budget - reserve - spent_;
        std::string failure;
        const auto obs = growth_of(t, &failure);
        std::optional<std::uint64_t> next;
        if (!failure.empty()) {
          t.stopped = failure;
        } else if (obs.empty()) {
          if (remaining > 0)
            next = t.start;
          else
            t.stopped = "the budget was spent before it started";
        } else {
          growth_limits l;
          l.allowance = remaining / static_cast<double>(active.size());
          l.timeout = p_.timeout;
          l.host_free = static_cast<double>(available_memory_bytes());
          l.device_free = device_free_bytes(backend_of(t));
          l.max_size = t.max_size;
          l.growth = cal.growth;
          l.min_sizes = cal.min_sizes;
          l.snap = snap_of(t);
          auto step = next_size(obs, l, policy());
          if (!step.next)
            t.stopped = step.stop;
          else if (auto firm = firm_twice(i, obs, reserve, step.predicted_wall))
            t.stopped = *firm;
          else
            next = step.next;
        }
        const auto from = p_.points.size();
        if (next) {
          p_.add(t.problem, t.variant, *next, t.params, "grow");
        } else {
          // min_sizes from the end of a flat start on (rising_from): the flat sizes below it show
          // where it ends and are not filled.
          const auto below = obs.empty() ? 0 : rising_from(obs);
          std::vector<std::uint64_t> sizes;
          for (std::size_t k = below; k < obs.size(); ++k) sizes.push_back(static_cast<std::uint64_t>(obs[k].n));
          const auto wanted = fill_sizes(sizes, cal.min_sizes, snap_of(t), cost_gap(obs));
          const auto fill =
              obs.empty() ? wanted : affordable_fill(obs, wanted, (cal.budget - reserve - spent_) / static_cast<double>(active.size()), policy());
          if (fill.size() < wanted.size())
            t.stopped +=
                fmt::format("; the budget afforded {} of the {} sizes that fill the range to {}{}", fill.size(), wanted.size(), cal.min_sizes,
                            below ? fmt::format(" past its flat start (up to n = {})", format_size(obs[below].n)) : std::string());
          for (auto n : fill) p_.add(t.problem, t.variant, n, t.params, "fill");
        }
        save_plan();
        if (!run_new_points(from, point_timeout())) return false;
      }
    }
    if (looks_)
      p_.notes.push_back(
          fmt::format("growth looked at the tracks' verdicts {} time{} ({} charged to the budget); {} track{} firm at two "
                      "looks in a row grew no further",
                      looks_, looks_ == 1 ? "" : "s", format_time(looked_), firm_stops_, firm_stops_ == 1 ? "" : "s"));
    // The energy windows before the settle phase: their points are replicates of the time too, so
    // the verdicts the settle phase ends on are those `ema fit` then prints (settled first, the
    // energy points changed them after: a firm verdict in the sweep's story, tentative in `ema show`).
    return measure_energy(energy) && settle(0);
  }

  // Growth ends where a track's verdicts are firm and were firm on the same classes when it last
  // looked, on its total time and on its kernel time where it has one: the budget the track would
  // have grown with goes to the tracks not yet settled. It looks from 6 sizes over a range of 8x,
  // before a growth point that would cost at least four looks (a look fits each time, about 0.03 s
  // a fit on the 2-core VM); each look's time is charged to the budget. Twice, not once: in the
  // real set's calibrated sweeps (tests/analysis/real), refitted after each growth step, a verdict
  // firm once was firm and wrong in 1 of 305 series (a Thrust search kernel, firm Θ(n log n) at 19
  // sizes, tentative at 20); firm at two looks in a row, in none of 197 (docs/calibration.md).
  std::optional<std::string> firm_twice(std::size_t i, const std::vector<observation>& obs, double reserve, double next_cost) {
    const auto& cal = *p_.calibrated;
    const auto& t = cal.tracks[i];
    if (obs.size() < 6 || obs.back().n < 8 * obs.front().n || next_cost < 4 * look_cost_) return std::nullopt;
    const auto start = clock_type::now();
    const auto firm = firm_classes(t, obs, reserve);
    look_cost_ = std::chrono::duration<double>(clock_type::now() - start).count();
    spent_ += look_cost_;
    looked_ += look_cost_;
    ++looks_;
    const auto last = firm_at_last_look_.find(i);
    const bool twice = firm && last != firm_at_last_look_.end() && last->second.first == *firm;
    const double before = twice ? last->second.second : 0;
    if (firm)
      firm_at_last_look_[i] = {*firm, obs.back().n};
    else
      firm_at_last_look_.erase(i);
    if (!twice) return std::nullopt;
    ++firm_stops_;
    return fmt::format("firm at n = {} and at n = {}, {}: grown no further, so that its share of the budget goes to the tracks not yet firm",
                       format_size(before), format_size(obs.back().n), *firm);
  }

  // The classes of a track's verdicts where each is firm ("Θ(n) on its total time and Θ(n) on its
  // kernel time"); none where one is not.
  std::optional<std::string> firm_classes(const track& t, const std::vector<observation>& obs, double reserve) {
    std::vector<std::string> firm;
    for (const char* metric : {"total", "kernel"}) {
      std::string said;
      const auto a = verdict_of(t, obs, metric, reserve, said);
      if (!a && said.empty()) continue;  // no kernel time
      if (!a || a->verdict.level != fit::verdict_level::firm) return std::nullopt;
      firm.push_back(fmt::format("{} on its {} time", a->groups.best.theta().text(), metric));
    }
    return fmt::format("{}", fmt::join(firm, " and "));
  }

  // A point may take what is left of the budget, but at least 10 s (and never past the timeout).
  double point_timeout() const { return std::min(p_.timeout, std::max(10.0, p_.calibrated->budget - spent_)); }

  // Whether a track's points can read an energy meter here (the idle power measured before the
  // sweep says which meters there are): the CPU package for every variant, the board for a GPU one.
  bool meters_energy(const track& t) const {
    if (!p_.energy.enabled || p_.external) return false;
    if (idle_.contains("energy_cpu") && idle_["energy_cpu"].is_number()) return true;
    const auto* v = lookup_variant(t.problem, t.variant);
    if (!v || !uses_gpu(v->backend)) return false;
    const auto g = idle_.value("energy_gpu", nlohmann::json::array());
    return !g.empty() && g[0].is_number();
  }

  // Seconds kept back from growth for the energy windows: per track that can meter, energy_sizes
  // windows and a process start each, at most a fifth of the budget.
  double energy_reserve() const {
    const auto& cal = *p_.calibrated;
    int metered = 0;
    for (const auto& t : cal.tracks) metered += meters_energy(t);
    return std::min(0.2 * cal.budget, metered * cal.energy_sizes * (p_.energy.window + 0.5) * p_.instances);
  }

  // How a track's latest point at size n ended; nullopt where none has run.
  std::optional<point_status> status_at(const track& t, std::uint64_t n) const {
    std::optional<point_status> out;
    const auto params = t.params.canonical_json();
    for (const auto& pt : p_.points)
      if (pt.n == n && of_track(pt, t, params))
        if (auto it = records_.find(pt.ordinal); it != records_.end()) out = it->second.status;
    return out;
  }

  // The sizes of a track's points, every phase, planned or run.
  std::set<std::uint64_t> planned_sizes(const track& t) const {
    std::set<std::uint64_t> out;
    const auto params = t.params.canonical_json();
    for (const auto& pt : p_.points)
      if (of_track(pt, t, params)) out.insert(pt.n);
    return out;
  }

  // The series `ema fit` would fit for a track's `metric` (total, kernel): each point that ran ok,
  // the median of its runs; and the noise of a point (the median relative standard error of those
  // medians). Empty where the track's points report no samples of the metric.
  // Of the points measured twice, those `ema fit` sets aside (store/remeasured.hpp) are left out:
  // a busy stretch of growth measured again quiet by the energy window is fitted as `ema fit` will.
  std::pair<fit::series, double> metric_series(const track& t, const std::string& metric) const {
    fit::series s;
    std::vector<double> errors;
    const auto params = t.params.canonical_json();
    // The track's own records only: a point is set aside against the same problem, variant,
    // parameters and size, all of which are the track's.
    std::vector<const point_record*> all;
    for (const auto& pt : p_.points)
      if (of_track(pt, t, params))
        if (auto it = records_.find(pt.ordinal); it != records_.end()) all.push_back(&it->second);
    const auto why = set_aside_reasons(all);
    std::set<int> aside;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (!why[i].empty()) aside.insert(all[i]->ordinal);
    for (const auto& pt : p_.points) {
      if (!of_track(pt, t, params) || aside.count(pt.ordinal)) continue;
      auto it = records_.find(pt.ordinal);
      if (it == records_.end() || it->second.status != point_status::ok) continue;
      auto tot = it->second.samples.find(metric);
      if (tot == it->second.samples.end() || tot->second.empty()) continue;
      const double m = median(tot->second);
      if (m > 0 && std::isfinite(m)) s.add(static_cast<double>(pt.n), m);
      if (const double e = median_rse(tot->second); std::isfinite(e)) errors.push_back(e);
    }
    return {s, errors.empty() ? std::numeric_limits<double>::quiet_NaN() : median(errors)};
  }

  /// A size a track's verdict wants measured to settle it, and its predicted cost.
  struct settle_want {
    std::size_t track;
    std::uint64_t n;
    double cost;
    /// The cost of the whole way to the size named: `cost` and the steps of the rounds after it
    /// (infinite where one of them is over the timeout or the memory); `cost` for more sizes.
    double way;
    std::string what;        ///< "n = X would settle it", or the size on the way to it
    std::size_t metric = 0;  ///< which of settle()'s metrics wants it
    /// More sizes inside the fitted regime in place of `n` (more_sizes_want), the first to run first.
    std::vector<std::uint64_t> between;
  };

  /// The analysis `ema fit` would make of track `t`'s `metric` from its points so far, weighed
  /// against the budget left after `reserve` (the size it names, the cost of running it); none,
  /// with `said` saying why, where it cannot be fitted (left empty where no point reports the metric).
  std::optional<fit::analysis> verdict_of(const track& t, const std::vector<observation>& obs, const std::string& metric, double reserve,
                                          std::string& said) {
    const auto& cal = *p_.calibrated;
    const auto [data, noise] = metric_series(t, metric);
    if (data.size() == 0 && metric != "total") return std::nullopt;
    if (data.sizes().size() < 3) {
      said = "not fitted: fewer than 3 sizes ran ok";
      return std::nullopt;
    }
    fit::analysis_options o;
    o.noise = noise;
    // The work model as `ema fit` weighs it (the floors of the growth, the working set against the
    // machine's caches), so that the size run to settle a verdict is the one `ema fit` names and
    // the verdict the sweep ends on is the one it prints (a registered problem's; none for `ema exec`).
    if (const auto* problem = lookup_problem(t.problem)) {
      const auto* variant = lookup_variant(t.problem, t.variant);
      if (!machine_) {
        const auto e = db_.experiment(experiment_);
        machine_ = e ? e->machine : nlohmann::json::object();
      }
      fit::add_work_model(o, *problem, std::make_shared<const param_set>(t.params), variant ? variant->algorithm : "", *machine_, backend_of(t),
                          data.sizes().back());
    }
    o.groups.budget = std::max(0.0, cal.budget - reserve - spent_);
    o.groups.cost = [&obs, this](double n) { return predict_wall(obs, n, policy()) * p_.instances; };
    try {
      auto a = fit::analyze(data, o);
      said = fmt::format("{}, {}", fit::to_string(a.verdict.level), a.groups.best.theta().text());
      return a;
    } catch (const std::invalid_argument& e) {
      said = fmt::format("not fitted: {}", e.what());
      return std::nullopt;
    }
  }

  /// What settling track `i` wants this round for its `metric`: the size that metric's verdict
  /// names, where the verdict is not firm and the size is new and fits the timeout and the memory;
  /// else nothing, with `said` saying why (left empty where no point reports the metric). `obs`:
  /// the track's points as calibration reads them (growth_of).
  std::optional<settle_want> wanted(std::size_t i, const std::vector<observation>& obs, const std::string& metric, int round, double reserve,
                                    std::string& said) {
    constexpr int max_rounds = 6;
    auto& cal = *p_.calibrated;
    auto& t = cal.tracks[i];
    const auto a = verdict_of(t, obs, metric, reserve, said);
    if (!a) return std::nullopt;
    const auto& vd = a->verdict;
    if (vd.level == fit::verdict_level::firm) return std::nullopt;
    if (!vd.reasons.empty()) said += fmt::format(" ({} reason{}: `ema fit` lists them)", vd.reasons.size(), vd.reasons.size() == 1 ? "" : "s");
    // Where the size named cannot run, more sizes inside the regime, where the verdict says how
    // many would settle it (more_sizes_want).
    const auto instead = [&]() -> std::optional<settle_want> {
      if (obs.empty() || round == max_rounds) return std::nullopt;
      return more_sizes_want(i, *a, obs, reserve, said);
    };
    if (!vd.next_size) return instead();
    auto n = static_cast<std::uint64_t>(std::llround(std::min(*vd.next_size, 0x1p62)));
    if (const auto snap = snap_of(t)) n = snap(n);
    if (t.max_size && n > t.max_size) n = t.max_size;
    if (const auto snap = snap_of(t); snap && snap(n) != n) {  // the largest allowed is not a size it takes
      said += fmt::format("; n = {} would settle it, past the largest size allowed", format_size(static_cast<double>(n)));
      return instead();
    }
    if (planned_sizes(t).count(n)) {
      if (const auto ended = status_at(t, n); ended && *ended != point_status::ok)
        said += fmt::format("; n = {} would settle it and ended {}", format_size(static_cast<double>(n)), to_string(*ended));
      else
        said += fmt::format("; n = {}, which would settle it, is measured", format_size(static_cast<double>(n)));
      return instead();
    }
    if (obs.empty() || round == max_rounds) return std::nullopt;
    // Toward the size named no further a round than growth steps (runner/calibrate.hpp, settle_step).
    const auto named = n;
    growth_limits limits;
    limits.growth = cal.growth;
    limits.snap = snap_of(t);
    if (const auto toward = settle_step(obs.back().n, n, limits); toward != n) {
      if (planned_sizes(t).count(toward)) {  // run before and not measured (it failed): the way is closed
        const auto ended = status_at(t, toward);
        said += fmt::format("; n = {} would settle it, and n = {} on the way there {}", format_size(static_cast<double>(n)),
                            format_size(static_cast<double>(toward)), ended ? fmt::format("ended {}", to_string(*ended)) : "did not run");
        return instead();
      }
      n = toward;
    }
    const auto what = n == named ? fmt::format("n = {} would settle it", format_size(static_cast<double>(n)))
                                 : fmt::format("n = {} (on the way to n = {}, which would settle it)", format_size(static_cast<double>(n)),
                                               format_size(static_cast<double>(named)));
    const double cost = predict_wall(obs, static_cast<double>(n), policy()) * p_.instances;
    const double left = cal.budget - reserve - spent_;
    if (cost / p_.instances > p_.timeout)
      said += fmt::format("; {} but would take about {}, over the per-point timeout", what, format_time(cost));
    else if (const auto refusal = memory_refusal(obs, static_cast<double>(n), backend_of(t)); !refusal.empty())
      said += fmt::format("; {} but {}", what, refusal);
    else if (cost > left && vd.more_sizes)
      said += fmt::format("; {} but would take about {}, over the budget left ({})", what, format_time(cost), format_time(std::max(left, 0.0)));
    else
      return settle_want{i, n, cost, cost + way_on(obs, n, named, limits, backend_of(t)), what};
    return instead();
  }

  /// The predicted cost of the rounds after one that runs `from`, each stepping toward `named` no
  /// further than growth does (settle_step), to `named` itself; infinite where one of those points
  /// would be over the per-point timeout or the memory.
  double way_on(const std::vector<observation>& obs, std::uint64_t from, std::uint64_t named, const growth_limits& limits,
                const std::string& backend) {
    double cost = 0;
    for (auto n = from; n < named;) {
      const auto next = settle_step(static_cast<double>(n), named, limits);
      if (next <= n) break;
      const double c = predict_wall(obs, static_cast<double>(next), policy()) * p_.instances;
      if (c / p_.instances > p_.timeout || !memory_refusal(obs, static_cast<double>(next), backend).empty()) return INFINITY;
      cost += c;
      n = next;
    }
    return cost;
  }

  /// Where track `i`'s verdict `a` says how many times as many sizes over the same range would
  /// exclude the classes left beside its answer (analysis/verdict.hpp, more_sizes), those sizes
  /// between the regime's (runner/calibrate.hpp fill_sizes: the geometric midpoints of the widest
  /// gaps, as the problem takes them), as many of them as the budget left affords, the first to run
  /// first; none where none lies between or none is affordable, with `said` saying so. `ema fit
  /// --more-sizes` does the same after a sweep. Inside the range measured no point needs more time
  /// or memory than one run already. (Measured on an H200: a GPU kernel's scatter between sizes
  /// repeats from one round of the same sizes to the next, so more sizes, not the same ones again,
  /// raise the evidence; cub-radix's kernel went from tentative at every other size to firm with
  /// all 17. docs/fitting.md, 2026-12-03.)
  std::optional<settle_want> more_sizes_want(std::size_t i, const fit::analysis& a, const std::vector<observation>& obs, double reserve,
                                             std::string& said) {
    // A track's sizes at most, over all rounds: where the scatter between sizes is the cost's own
    // structure (a cache's steps), more sizes show more of it rather than averaging it away, and the
    // factor asked does not fall (a stencil sweep on the 2-core VM added 37 to omp-tb's 12 over two
    // rounds, and its verdict did not settle).
    constexpr int most_added = 24;
    const auto& t = p_.calibrated->tracks[i];
    if (!a.verdict.more_sizes) return std::nullopt;
    const auto params = t.params.canonical_json();
    const int already = static_cast<int>(
        std::count_if(p_.points.begin(), p_.points.end(), [&](const plan_point& pt) { return pt.phase == "more-sizes" && of_track(pt, t, params); }));
    if (already >= most_added) {
      said += fmt::format("; about {:.1f} times as many sizes would settle it, but {} more ran already", *a.verdict.more_sizes, already);
      return std::nullopt;
    }
    std::vector<std::uint64_t> regime;
    for (double n : a.data.sizes())
      if (n >= a.regime_from) regime.push_back(static_cast<std::uint64_t>(std::llround(n)));
    if (regime.size() < 2) return std::nullopt;
    const auto planned = planned_sizes(t);
    const auto proposed =
        more_sizes(regime, *a.verdict.more_sizes, most_added - already, snap_of(t), std::vector<std::uint64_t>(planned.begin(), planned.end()));
    const auto range =
        fmt::format("between n = {} and n = {}", format_size(static_cast<double>(regime.front())), format_size(static_cast<double>(regime.back())));
    if (proposed.empty()) {
      said +=
          fmt::format("; about {:.1f} times as many sizes would settle it, and no size its inputs can have lies {}", *a.verdict.more_sizes, range);
      return std::nullopt;
    }
    const double left = p_.calibrated->budget - reserve - spent_;
    settle_want w{i, proposed.front(), 0, 0, ""};
    for (auto n : proposed) {
      const double c = predict_wall(obs, static_cast<double>(n), policy()) * p_.instances;
      if (w.cost + c > left) break;
      w.cost += c;
      w.between.push_back(n);
    }
    if (w.between.empty()) {
      said += fmt::format("; about {:.1f} times as many sizes {} would settle it, but the budget left ({}) affords none", *a.verdict.more_sizes,
                          range, format_time(std::max(left, 0.0)));
      return std::nullopt;
    }
    w.way = w.cost;
    w.what = fmt::format("{} more size{} {} (about {:.1f} times as many would settle it)", w.between.size(), w.between.size() == 1 ? "" : "s", range,
                         *a.verdict.more_sizes);
    return w;
  }

  // Last, after growth and the energy windows, while the budget lasts: each track whose verdict on
  // its total time or on its kernel time is not firm runs the size that verdict names
  // (analysis/verdict.hpp: the size that would exclude each class left beside the answer, the tie
  // breaker's size, else four times the largest), round after round, until it is firm, the size is
  // already measured, or the point would not fit the budget, the timeout or the memory. Each
  // track's `settled` says how each of its metrics ended. (The kernel time is a series of its own
  // in `ema fit`: on an H200 a 90 s sort sweep left CUB's merge sort firm on its total time and
  // tentative on its kernel time, "only 5 sizes above the knee at n ≈ 2.49M", with the size that
  // settles it a 2 ms kernel.)
  bool settle(double reserve) {
    auto& cal = *p_.calibrated;
    const std::array<std::string, 2> metrics{"total", "kernel"};
    for (int round = 0;; ++round) {
      std::vector<settle_want> wants;
      std::vector<std::array<std::string, 2>> said(cal.tracks.size());
      for (std::size_t i = 0; i < cal.tracks.size(); ++i) {
        std::string failure;
        const auto obs = growth_of(cal.tracks[i], &failure, true);
        for (std::size_t m = 0; m < metrics.size(); ++m)
          if (auto w = wanted(i, obs, metrics[m], round, reserve, said[i][m])) {
            w->metric = m;
            const auto same = std::find_if(wants.begin(), wants.end(), [&](const settle_want& o) {
              return o.track == i && (o.between.empty() == w->between.empty()) && (o.between.empty() ? o.n == w->n : true);
            });
            if (same == wants.end())
              wants.push_back(*w);
            else if (w->between.empty())
              said[i][m] += fmt::format("; n = {} would settle it, as it would the total time's", format_size(static_cast<double>(w->n)));
            else {  // both metrics want more sizes between: the more of the two
              said[i][m] += fmt::format("; more sizes between would settle it, as they would the total time's");
              if (w->between.size() > same->between.size()) {  // told with the total time's, as it comes first
                const auto metric = same->metric;
                *same = *w;
                same->metric = metric;
              }
            }
          }
      }
      const auto tell = [&] {
        for (std::size_t i = 0; i < cal.tracks.size(); ++i)
          cal.tracks[i].settled = said[i][1].empty() ? said[i][0] : fmt::format("{}; its kernel time's fit: {}", said[i][0], said[i][1]);
      };
      tell();
      if (wants.empty()) break;
      // Those whose whole way to the size named fits first, the cheapest way first, then the
      // cheapest steps with what those leave (settle_picks).
      double left = cal.budget - reserve - spent_;
      std::vector<double> steps, ways;
      for (const auto& w : wants) steps.push_back(w.cost), ways.push_back(w.way);
      const auto order = settle_picks(steps, ways, left);
      std::vector<bool> picked(wants.size(), false);
      for (auto k : order) picked[k] = true;
      for (std::size_t k = 0; k < wants.size(); ++k)
        if (!picked[k])
          said[wants[k].track][wants[k].metric] +=
              wants[k].cost > left ? fmt::format("; {} but would take about {}, over the budget left ({})", wants[k].what, format_time(wants[k].cost),
                                                 format_time(std::max(left, 0.0)))
                                   : fmt::format(
                                         "; {} but would take about {}, and the budget left ({}) is kept for tracks it takes all the "
                                         "way to the size that settles them",
                                         wants[k].what, format_time(wants[k].cost), format_time(std::max(left, 0.0)));
      // One point at a time, each with the timeout what is left of the budget allows then: the
      // costs are predictions, and a round's points chosen together on them had an H200 stencil
      // sweep of 90 s spend 114 s (a settle point took 23 s, longer than predicted, and the next was
      // still allowed the 24 s the budget had left at the start of the round, and timed out).
      // A point that timed out on a timeout that was the budget's remainder spent the budget, though
      // its wall time, read apart from the timeout's clock, may fall a few milliseconds short (CI's
      // AddressSanitizer run ran a second trapped point that way).
      bool ran = false, spent_all = false;
      for (auto k : order) {
        const auto& w = wants[k];
        const auto& t = cal.tracks[w.track];
        if (ran && (spent_all || spent_ >= cal.budget - reserve)) {
          said[w.track][w.metric] +=
              fmt::format("; {}, not run: the points before it in its round took longer than predicted and spent the budget", w.what);
          continue;
        }
        said[w.track][w.metric] += fmt::format("; {}", w.what);
        const auto sizes = w.between.empty() ? std::vector<std::uint64_t>{w.n} : w.between;
        for (std::size_t j = 0; j < sizes.size(); ++j) {
          if (j > 0 && (spent_all || spent_ >= cal.budget - reserve)) {
            said[w.track][w.metric] +=
                fmt::format(", of which {} not run: the points before them took longer than predicted and spent the budget", sizes.size() - j);
            break;
          }
          const auto from = p_.points.size();
          p_.add(t.problem, t.variant, sizes[j], t.params, w.between.empty() ? "settle" : "more-sizes");
          tell();
          save_plan();
          const double timeout = point_timeout();
          if (!run_new_points(from, timeout)) return false;
          ran = true;
          if (const auto it = records_.find(p_.points[from].ordinal);
              it != records_.end() && it->second.status == point_status::timeout && timeout < p_.timeout)
            spent_all = true;
        }
      }
      tell();
      save_plan();
      if (!ran) break;
    }
    save_plan();
    return true;
  }

  // After growth, before the settle phase, the energy windows: with the share kept back for them,
  // at up to energy_sizes of each metering track's sizes, spread evenly in log n (the largest
  // kept), as many as that share affords, the cheapest first.
  bool measure_energy(double reserve) {
    auto& cal = *p_.calibrated;
    std::vector<std::size_t> metered;
    for (std::size_t i = 0; i < cal.tracks.size(); ++i)
      if (meters_energy(cal.tracks[i])) metered.push_back(i);
    if (metered.empty() || cal.energy_sizes <= 0) return true;
    const auto from = p_.points.size();
    double left = std::min(reserve, cal.budget - spent_);
    for (std::size_t k = 0; k < metered.size(); ++k) {
      const auto& t = cal.tracks[metered[k]];
      const auto params = t.params.canonical_json();
      bool done = false;
      for (const auto& pt : p_.points) done |= of_track(pt, t, params) && pt.phase == "energy";
      if (done) continue;  // resumed: chosen before
      std::string failure;
      const auto obs = growth_of(t, &failure, true);
      if (obs.empty()) continue;
      std::vector<std::uint64_t> sizes;
      for (const auto& o : obs) sizes.push_back(static_cast<std::uint64_t>(o.n));
      const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(cal.energy_sizes), sizes.size());
      std::set<std::uint64_t> picks;
      for (std::size_t i = 0; i < want; ++i)
        picks.insert(want == 1 ? sizes.back()
                               : sizes[static_cast<std::size_t>(
                                     std::llround(static_cast<double>(i) * static_cast<double>(sizes.size() - 1) / static_cast<double>(want - 1)))]);
      std::vector<std::pair<double, std::uint64_t>> costed;
      for (auto n : picks) costed.emplace_back((predict_wall(obs, static_cast<double>(n), policy()) + p_.energy.window) * p_.instances, n);
      std::sort(costed.begin(), costed.end());
      const double share = left / static_cast<double>(metered.size() - k);
      double spent = 0;
      std::vector<std::uint64_t> chosen;
      for (const auto& [cost, n] : costed) {
        if (spent + cost > share) break;
        spent += cost;
        chosen.push_back(n);
      }
      left -= spent;
      std::sort(chosen.begin(), chosen.end());
      for (auto n : chosen) p_.add(t.problem, t.variant, n, t.params, "energy");
      if (chosen.size() < picks.size())
        p_.notes.push_back(fmt::format("{} {}: energy measured at {} of {} sizes; the budget left afforded no more", t.problem, t.variant,
                                       chosen.size(), picks.size()));
    }
    save_plan();
    return run_new_points(from, point_timeout());
  }

  std::string backend_of(const track& t) const {
    const auto* v = lookup_variant(t.problem, t.variant);
    return v ? std::string(to_string(v->backend)) : std::string();
  }

  /// Worker processes kept for their track's next point (plan::processes), by track_key.
  struct kept {
    std::unique_ptr<worker_session> session;
    std::uint64_t used = 0;
  };
  /// How many kept workers may be alive: each idle one holds its CUDA context, about 0.5 GB of
  /// device memory, and together they may hold a tenth of the smallest GPU's memory (28 on a
  /// 141 GB H200, 3 on a 16 GB card), at least 2 and at most 32; 32 on a machine without a GPU.
  std::size_t kept_limit() const {
    constexpr double context_bytes = 0.5e9;
    double smallest = 0;
    for (const auto& d : gpu::query().devices)
      if (smallest == 0 || static_cast<double>(d.memory_bytes) < smallest) smallest = static_cast<double>(d.memory_bytes);
    if (smallest == 0) return 32;
    return static_cast<std::size_t>(std::clamp(0.1 * smallest / context_bytes, 2.0, 32.0));
  }
  std::map<std::string, kept> kept_;
  std::uint64_t uses_ = 0;

  database& db_;
  std::int64_t experiment_;
  std::optional<nlohmann::json> machine_;  ///< the experiment's machine record, read when first needed
  plan& p_;
  const nlohmann::json& idle_;
  const sweep_settings& settings_;
  clock_type::time_point started_;
  std::string last_problem_;  ///< of the last progress line printed (progress_style::lines)
  double last_line_ = 0;      ///< seconds into the sweep when it was printed
  sweep_result result_;
  std::string output_failure_;  ///< set by the point that could not write a file asked of it
  std::map<int, point_record> records_;
  double spent_ = 0;
  double look_cost_ = 0.05;         ///< seconds the last look at a growing track's verdicts took (firm_twice)
  int looks_ = 0, firm_stops_ = 0;  ///< looks at growing tracks' verdicts, and the tracks they stopped
  double looked_ = 0;               ///< seconds those looks took
  /// Of a track (its index), the classes it was firm on when growth last looked, and its largest size then (firm_twice).
  std::map<std::size_t, std::pair<std::string, double>> firm_at_last_look_;
};

}  // namespace

sweep_result run_sweep(database& db, std::int64_t experiment_id, plan& p, const nlohmann::json& idle, const sweep_settings& settings) {
  return sweeper(db, experiment_id, p, idle, settings).run();
}

}  // namespace ema
