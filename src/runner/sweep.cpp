#include "runner/sweep.hpp"

#include <chrono>
#include <csignal>
#include <fmt/format.h>
#include <unistd.h>

#include "core/registry.hpp"
#include "measure/memory.hpp"
#include "runner/isolate.hpp"

namespace ema {
namespace {

std::string last_lines(const std::string& text, std::size_t max_chars = 600) {
  auto s = text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.size() > max_chars) s = "…" + s.substr(s.size() - max_chars);
  return s;
}

std::string with_stderr(std::string reason, const std::string& tail) {
  auto t = last_lines(tail);
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

sweep_result run_sweep(database& db, std::int64_t experiment_id, const plan& p, const nlohmann::json& idle,
                       const sweep_settings& settings) {
  sweep_result result;
  const auto done = db.recorded_ordinals(experiment_id);
  const int total = static_cast<int>(p.points.size());
  const int todo = total - static_cast<int>(done.size());
  result.already_done = static_cast<int>(done.size());
  auto started = std::chrono::steady_clock::now();
  int finished_now = 0;
  nlohmann::json reps = p.to_json()["repetitions"];
  nlohmann::json energy = {{"enabled", p.energy.enabled}, {"window", p.energy.window}};

  for (const auto& pt : p.points) {
    if (done.count(pt.ordinal)) continue;
    if (settings.stop && settings.stop->load()) {
      result.interrupted = true;
      break;
    }
    if (settings.progress) {
      double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      double eta = finished_now ? elapsed / finished_now * (todo - finished_now) : -1;
      fmt::print(stderr, "\r\033[K[{}/{}] {} {} n={} eta {}", pt.ordinal + 1, total, pt.problem, pt.variant, pt.n,
                 format_eta(eta));
      std::fflush(stderr);
    }

    point_record r;
    r.experiment_id = experiment_id;
    r.ordinal = pt.ordinal;
    r.problem = pt.problem;
    r.variant = pt.variant;
    r.n = pt.n;
    r.params_json = pt.params.canonical_json();
    r.seed = pt.seed;
    r.started_at = utc_now();

    const variant_desc* v = nullptr;
    for (const auto* c : variants_of(pt.problem))
      if (pt.variant == c->name) v = c;
    if (!v) {
      r.status = point_status::skipped;
      r.reason = "this build of ema has no such variant";
    } else if (auto a = available(*v); !a.ok) {
      r.backend = to_string(v->backend);
      r.status = point_status::skipped;
      r.reason = a.reason;
    } else {
      r.backend = to_string(v->backend);
      nlohmann::json params_json = nlohmann::json::object();
      for (const auto& [k, val] : pt.params.values()) params_json[k] = val;
      nlohmann::json spec = {{"problem", pt.problem}, {"variant", pt.variant}, {"n", pt.n},
                             {"params", params_json}, {"seed", pt.seed},     {"repetitions", reps},
                             {"energy", energy},      {"idle", idle}};
      auto child = run_isolated({settings.worker, "__worker"}, spec.dump(), p.timeout, settings.stop);
      if (child.interrupted) {
        result.interrupted = true;
        break;
      }
      interpret_child(child, p.timeout, r);
    }
    r.finished_at = utc_now();
    db.record_point(r);
    ++finished_now;
    ++result.run;
    if (r.status == point_status::skipped) ++result.skipped;
    if (is_failure(r.status)) ++result.failed;
  }
  if (settings.progress) fmt::print(stderr, "\r\033[K");
  return result;
}

}  // namespace ema
