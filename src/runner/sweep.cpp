#include "runner/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <csignal>
#include <fmt/format.h>
#include <unistd.h>

#include "core/registry.hpp"
#include "measure/gpu.hpp"
#include "measure/memory.hpp"
#include "measure/nvml.hpp"
#include "measure/stats.hpp"
#include "runner/calibrate.hpp"
#include "runner/external.hpp"
#include "runner/isolate.hpp"

namespace ema {
namespace {

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

void interpret_child(const child_outcome& child, double timeout, point_record& r) {
  r.samples["host_peak_rss"] = {static_cast<double>(child.max_rss_kib) * 1024.0};
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
  if (!child.exited) {
    const double rss = static_cast<double>(child.max_rss_kib) * 1024.0;
    if (child.signal == SIGKILL && rss > 0.5 * static_cast<double>(total_memory_bytes())) {
      r.status = point_status::oom;
      r.reason = fmt::format("killed by SIGKILL at {:.1f} GiB resident: the kernel's out-of-memory killer",
                             rss / (1u << 30));
    } else {
      r.status = point_status::crashed;
      r.reason = with_stderr("killed by " + describe_signal(child.signal), child.stderr_tail);
    }
    return;
  }
  auto answer = nlohmann::json::parse(child.answer, nullptr, false);
  if (child.exit_code != 0 || answer.is_discarded() || !answer.is_object()) {
    r.status = point_status::crashed;
    r.reason = with_stderr(fmt::format("the worker exited with code {} without an answer", child.exit_code),
                           child.stderr_tail);
    return;
  }
  r.status = status_from_string(answer.value("status", "failed")).value_or(point_status::failed);
  r.reason = answer.value("reason", "");
  r.verified = answer.value("verified", false);
  r.result_json = answer.value("result", nlohmann::json::object()).dump();
  r.notes_json = answer.value("notes", nlohmann::json::object()).dump();
  r.unavailable_json = answer.value("unavailable", nlohmann::json::object()).dump();
  const auto samples = answer.value("samples", nlohmann::json::object());
  for (const auto& [metric, values] : samples.items()) r.samples[metric] = values.get<std::vector<double>>();
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

// Device memory free now on the devices a back end uses, read through NVML (no CUDA context).
double device_free_bytes(const std::string& backend) {
  const auto& devices = gpu::query().devices;
  const int used = devices_used(backend, static_cast<int>(devices.size()));
  double free = 0;
  for (int i = 0; i < used; ++i)
    if (auto h = nvml::device_by_pci(devices[static_cast<std::size_t>(i)].pci_bus_id))
      if (auto f = nvml::free_memory_bytes(*h)) free += *f;
  return free;
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
      if (!records_.count(pt.ordinal) && !execute(pt, p_.timeout)) return finish();
    if (p_.calibrated && !calibrate()) return finish();
    return finish();
  }

 private:
  sweep_result finish() {
    if (settings_.progress) fmt::print(stderr, "\r\033[K");
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
    if (p_.external) {
      run_external_point(p_, pt, timeout, settings_.stop, r, stopped);
    } else {
      run_worker_point(pt, timeout, r, stopped);
    }
    if (stopped) return interrupted();
    r.finished_at = utc_now();
    db_.record_point(r);
    spent_ += first_sample(r, "point_wall");
    ++result_.run;
    if (r.status == point_status::skipped) ++result_.skipped;
    if (is_failure(r.status)) ++result_.failed;
    records_.emplace(r.ordinal, std::move(r));
    return true;
  }

  bool interrupted() {
    result_.interrupted = true;
    return false;
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
    nlohmann::json params_json = nlohmann::json::object();
    for (const auto& [k, val] : pt.params.values()) params_json[k] = val;
    const nlohmann::json spec = {{"problem", pt.problem}, {"variant", pt.variant}, {"n", pt.n},
                                 {"params", params_json}, {"seed", pt.seed},     {"repetitions", p_.reps.to_json()},
                                 {"energy", {{"enabled", p_.energy.enabled}, {"window", p_.energy.window}}},
                                 {"idle", idle_}};
    auto child = run_isolated({settings_.worker, "__worker"}, spec.dump(), timeout, settings_.stop);
    if (child.interrupted) {
      stopped = true;
      return;
    }
    interpret_child(child, timeout, r);
    r.samples["point_wall"] = {child.wall};
  }

  void progress(const plan_point& pt) {
    if (!settings_.progress) return;
    const double elapsed = std::chrono::duration<double>(clock_type::now() - started_).count();
    std::string where;
    if (p_.calibrated) {
      where = fmt::format("{} of {} budget spent", format_eta(spent_), format_eta(p_.calibrated->budget));
    } else {
      const int total = static_cast<int>(p_.points.size());
      const int todo = total - result_.already_done;
      const double eta = result_.run ? elapsed / result_.run * (todo - result_.run) : -1;
      where = fmt::format("eta {}", format_eta(eta));
    }
    fmt::print(stderr, "\r\033[K[{}/{}] {} {} n={}{} {}", pt.ordinal + 1, p_.points.size(), pt.problem, pt.variant, pt.n,
               p_.instances > 1 ? fmt::format(" #{}", pt.instance) : "", where);
    std::fflush(stderr);
  }

  void save_plan() { db_.set_experiment_plan(experiment_, p_.to_json()); }

  cost_policy policy() const {
    return {p_.reps, p_.energy.enabled && !p_.external ? p_.energy.window : 0.0, p_.instances};
  }

  // The growth points of a track that ran ok, ascending, one per size (averaged over instances),
  // and whether its latest growth point failed (with the reason).
  std::vector<observation> growth_of(const track& t, std::string* failure) const {
    std::map<std::uint64_t, std::vector<observation>> by_size;
    const std::string params = t.params.canonical_json();
    for (const auto& pt : p_.points) {
      if (pt.phase != "grow" || pt.problem != t.problem || pt.variant != t.variant || pt.params.canonical_json() != params)
        continue;
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

  // Grows every track one size per round until each stops, then fills its range.
  bool calibrate() {
    auto& cal = *p_.calibrated;
    for (;;) {
      std::vector<std::size_t> active;
      for (std::size_t i = 0; i < cal.tracks.size(); ++i)
        if (cal.tracks[i].stopped.empty()) active.push_back(i);
      if (active.empty()) return true;
      for (auto i : active) {
        auto& t = cal.tracks[i];
        const double remaining = cal.budget - spent_;
        std::string failure;
        const auto obs = growth_of(t, &failure);
        std::optional<std::uint64_t> next;
        if (!failure.empty()) {
          t.stopped = failure;
        } else if (obs.empty()) {
          if (remaining > 0) next = t.start;
          else t.stopped = "the budget was spent before it started";
        } else {
          growth_limits l;
          l.allowance = remaining / static_cast<double>(active.size());
          l.timeout = p_.timeout;
          l.host_free = static_cast<double>(available_memory_bytes());
          l.device_free = device_free_bytes(backend_of(t));
          l.max_size = t.max_size;
          l.growth = cal.growth;
          l.min_sizes = cal.min_sizes;
          auto step = next_size(obs, l, policy());
          if (step.next) next = step.next;
          else t.stopped = step.stop;
        }
        const auto from = p_.points.size();
        if (next) {
          p_.add(t.problem, t.variant, *next, t.params, "grow");
        } else {
          std::vector<std::uint64_t> sizes;
          for (const auto& o : obs) sizes.push_back(static_cast<std::uint64_t>(o.n));
          const auto wanted = fill_sizes(sizes, cal.min_sizes);
          const auto fill = obs.empty() ? wanted
                                        : affordable_fill(obs, wanted, (cal.budget - spent_) / static_cast<double>(active.size()),
                                                          policy());
          if (fill.size() < wanted.size())
            t.stopped += fmt::format("; the budget afforded {} of the {} sizes that fill the range to {}", fill.size(),
                                     wanted.size(), cal.min_sizes);
          for (auto n : fill) p_.add(t.problem, t.variant, n, t.params, "fill");
        }
        save_plan();
        // A point may take what is left of the budget, but at least 10 s (and never past the timeout).
        if (!run_new_points(from, std::min(p_.timeout, std::max(10.0, cal.budget - spent_)))) return false;
      }
    }
  }

  std::string backend_of(const track& t) const {
    const auto* v = lookup_variant(t.problem, t.variant);
    return v ? std::string(to_string(v->backend)) : std::string();
  }

  database& db_;
  std::int64_t experiment_;
  plan& p_;
  const nlohmann::json& idle_;
  const sweep_settings& settings_;
  clock_type::time_point started_;
  sweep_result result_;
  std::map<int, point_record> records_;
  double spent_ = 0;
};

}  // namespace

sweep_result run_sweep(database& db, std::int64_t experiment_id, plan& p, const nlohmann::json& idle,
                       const sweep_settings& settings) {
  return sweeper(db, experiment_id, p, idle, settings).run();
}

}  // namespace ema
