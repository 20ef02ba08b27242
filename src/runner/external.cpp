#include "runner/external.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <sstream>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/text.hpp"
#include "inputs/random.hpp"
#include "inputs/input_cache.hpp"
#include "runner/isolate.hpp"
#include "runner/sweep.hpp"

namespace ema {
namespace fs = std::filesystem;
namespace {

using clock_type = std::chrono::steady_clock;

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// How a child that did not exit with 0 failed, as a status and a reason.
bool failed(const child_outcome& c, const std::string& what, double timeout, point_record& r) {
  if (!c.output_problem.empty()) {
    r.status = point_status::failed;
    r.reason = fmt::format("{} was stopped: {}", what, c.output_problem);
  } else if (c.timed_out) {
    r.status = point_status::timeout;
    r.reason = fmt::format("{} exceeded the point's timeout of {:g} s", what, timeout);
    if (c.output_bytes > (std::size_t{1} << 20))
      r.reason += fmt::format(
          " (it wrote {:.0f} MiB to its standard output meanwhile; ema keeps only its phase lines and "
          "last lines)",
          static_cast<double>(c.output_bytes) / (1 << 20));
  } else if (!c.exited) {
    r.status = point_status::crashed;
    r.reason = fmt::format("{} was killed by {}", what, describe_signal(c.signal));
  } else if (c.exit_code != 0) {
    r.status = point_status::failed;
    r.reason = fmt::format("{} exited with code {}", what, c.exit_code);
  } else {
    return false;
  }
  if (auto t = output_tail(c.stderr_tail); !t.empty()) r.reason += "; stderr: " + t;
  return true;
}

double seconds_since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

}  // namespace

std::string expand_command(const std::string& command, std::uint64_t n, std::uint64_t seed, const std::string& input) {
  // The path is quoted for the shell context its placeholder stands in, so that no character of it
  // is ever read as syntax: unquoted (or inside a command substitution), inside the user's double
  // quotes (closed, the quoted path, reopened) or inside their single quotes (the same). The
  // contexts nest: $( ) and ` ` open a fresh one, even inside double quotes.
  struct frame {
    char kind;   // 'p': plain (the top, or $( )), 'b': backticks, 'd': double quotes
    int parens;  // open '(' inside a 'p' frame
  };
  std::vector<frame> stack{{'p', 0}};
  bool single = false;
  std::string out;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    const char next = i + 1 < command.size() ? command[i + 1] : '\0';
    auto& top = stack.back();
    if (c == '{') {
      const auto close = command.find('}', i);
      const auto key = close == std::string::npos ? std::string() : command.substr(i + 1, close - i - 1);
      if (key == "n" || key == "seed") {
        out += std::to_string(key == "n" ? n : seed);
        i = close;
        continue;
      }
      if (key == "input") {
        const auto q = shell_quote(input);
        out += single ? "'" + q + "'" : top.kind == 'd' ? "\"" + q + "\"" : q;
        i = close;
        continue;
      }
    }
    out += c;
    if (single) {
      single = c != '\'';
      continue;
    }
    if (c == '\\' && next) {
      out += command[++i];  // an escaped character opens and closes nothing
      continue;
    }
    if (c == '$' && next == '(') {
      out += command[++i];
      stack.push_back({'p', 0});
    } else if (c == '`') {
      if (top.kind == 'b')
        stack.pop_back();
      else
        stack.push_back({'b', 0});
    } else if (top.kind == 'd') {
      if (c == '"') stack.pop_back();
    } else if (c == '\'') {
      single = true;
    } else if (c == '"') {
      stack.push_back({'d', 0});
    } else if (c == '(') {
      ++top.parens;
    } else if (c == ')') {
      if (top.parens)
        --top.parens;
      else if (stack.size() > 1 && top.kind == 'p')
        stack.pop_back();
    }
  }
  return out;
}

void check_command(const std::string& option, const std::string& command, const std::vector<std::string>& required) {
  if (command.empty()) throw usage_error(fmt::format("{} is empty", option));
  for (std::size_t i = command.find('{'); i != std::string::npos; i = command.find('{', i + 1)) {
    const auto close = command.find('}', i);
    if (close == std::string::npos) break;
    const auto key = command.substr(i + 1, close - i - 1);
    if (key != "n" && key != "seed" && key != "input" && key.find_first_of(" \t$") == std::string::npos)
      throw usage_error(fmt::format("{}: unknown placeholder {{{}}}; valid: {{n}}, {{seed}}, {{input}}", option, key));
  }
  for (const auto& r : required)
    if (command.find("{" + r + "}") == std::string::npos) throw usage_error(fmt::format("{} must contain {{{}}}: '{}'", option, r, command));
}

void check_program(const std::string& option, const std::string& command, const std::string& cwd) {
  const auto start = command.find_first_not_of(" \t");
  if (start == std::string::npos) return;
  const auto word = command.substr(start, command.find_first_of(" \t", start) - start);
  const bool plain = std::all_of(word.begin(), word.end(), [](unsigned char c) { return std::isalnum(c) || std::strchr("_./+-", c); });
  if (!plain) return;
  static constexpr std::string_view shell_words[] = {".",    "cd",   "exec", "eval", "export", "set",   "test", "true",   "false",
                                                     "time", "read", "echo", "for",  "while",  "until", "if",   "printf", "command"};
  if (std::find(std::begin(shell_words), std::end(shell_words), word) != std::end(shell_words)) return;
  auto runnable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (word.find('/') != std::string::npos) {
    const fs::path p = fs::path(word).is_absolute() ? fs::path(word) : fs::path(cwd) / word;
    std::error_code ec;
    if (!fs::exists(p, ec))
      throw usage_error(
          fmt::format("{} '{}': {} does not exist (looked for as {})", option, one_line(command), one_line(word), one_line(p.string())));
    if (!runnable(p)) throw usage_error(fmt::format("{} '{}': {} is not an executable file", option, one_line(command), one_line(p.string())));
    return;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  for (std::size_t from = 0; from <= dirs.size();) {
    const auto to = std::min(dirs.find(':', from), dirs.size());
    const std::string dir(dirs.substr(from, to - from));
    if (runnable((dir.empty() ? fs::path(cwd) : fs::path(dir)) / word)) return;
    from = to + 1;
  }
  throw usage_error(fmt::format("{} '{}': no program {} on the PATH (a program in this folder is run as ./{})", option, one_line(command),
                                one_line(word), one_line(word)));
}

std::string parse_phase_lines(const std::string& out, std::map<std::string, double>& phases) {
  std::istringstream in(out);
  std::string line;
  int number = 0;  // among the phase lines
  while (std::getline(in, line)) {
    if (line.rfind("ema-phase", 0) != 0) continue;
    ++number;
    std::istringstream words(line);
    std::string tag, name, seconds, extra;
    words >> tag >> name >> seconds;
    const bool extra_words = static_cast<bool>(words >> extra);
    double v = -1;
    const auto [end, ec] = std::from_chars(seconds.data(), seconds.data() + seconds.size(), v);
    const bool name_ok =
        !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.'; });
    const bool reserved = find_metric(name).source == metric_source::run;  // ema measures it around the run
    if (tag != "ema-phase" || !name_ok || reserved || extra_words || seconds.empty() || ec != std::errc() || end != seconds.data() + seconds.size() ||
        !std::isfinite(v) || v < 0)
      return fmt::format(
          "malformed phase line {} of the program's output: '{}' (phase lines counted from 1; expected 'ema-phase NAME SECONDS' with "
          "NAME of letters, digits, '_', '-' or '.', not {}, and SECONDS a number >= 0)",
          number, output_tail(line, 120), run_metric_names());
    phases[name] += v;
  }
  return "";
}

namespace {

/// What preparing a point's input came to.
enum class input_state { ready, failed, interrupted };

/// The point's input: from the cache, or written by the generator to a temporary name and renamed
/// once complete, so that a failed generation never leaves a partial input behind. Sets `input`,
/// and on failure r's status and reason.
input_state external_input(const external_program& x, const plan_point& pt, double timeout, isolation how, fs::path& input, nlohmann::json& notes,
                           point_record& r) {
  std::optional<input_cache> cache;
  try {
    cache = input_cache::open(x.cache_dir);
  } catch (const usage_error& e) {
    r.status = point_status::failed;
    r.reason = e.what();
    return input_state::failed;
  }
  const auto key = hash_text(fmt::format("{}|{}|{}", x.generator, pt.n, pt.seed));
  input = cache->input_path(pt.problem, pt.n, pt.seed, key);
  std::error_code ec;
  if (fs::exists(input, ec)) {
    fs::last_write_time(input, fs::file_time_type::clock::now(), ec);  // most recently used
    notes["input"] = "cached";
  } else {
    const fs::path partial = input.string() + ".partial";
    fs::remove(partial, ec);
    const auto gen = expand_command(x.generator, pt.n, pt.seed, partial.string());
    how.timeout = timeout;
    auto g = run_isolated({"/bin/sh", "-c", gen}, "", how);
    if (g.interrupted || failed(g, "the generator", timeout, r)) {
      fs::remove(partial, ec);
      return g.interrupted ? input_state::interrupted : input_state::failed;
    }
    if (!fs::is_regular_file(partial, ec)) {
      r.status = point_status::failed;
      r.reason = fmt::format("the generator exited with 0 but wrote no input file at {{input}} (command: {})", output_tail(gen, 200));
      fs::remove(partial, ec);
      return input_state::failed;
    }
    fs::rename(partial, input, ec);
    notes["input"] = "generated";
    notes["generate_s"] = g.wall;
  }
  notes["input_bytes"] = static_cast<double>(fs::file_size(input, ec));
  if (x.cache_cap > 0) cache->trim(x.cache_cap, input);
  return input_state::ready;
}

/// The program's runs over its input, warm-ups first, until the plan's repetition policy is
/// satisfied, a run fails or the point's time runs out (r's status and reason say which); the
/// samples of the timed runs, and their CPU time in `own_cpu`. False when interrupted.
bool time_external_runs(const plan& p, const std::string& run, double timeout, clock_type::time_point start, isolation how, point_record& r,
                        std::map<std::string, std::vector<double>>& samples, double& own_cpu) {
  const auto timed_start = clock_type::now();
  for (int i = 0;; ++i) {
    const double left = timeout - seconds_since(start);
    if (left <= 0) {
      r.status = point_status::timeout;
      r.reason = fmt::format("the point's runs exceeded its timeout of {:g} s", timeout);
      return true;
    }
    how.timeout = left;
    auto c = run_isolated({"/bin/sh", "-c", run}, "", how);
    if (c.interrupted) return false;
    own_cpu += c.user + c.sys;
    if (failed(c, "the program", timeout, r)) return true;
    std::map<std::string, double> phases;
    if (auto why = parse_phase_lines(c.answer, phases); !why.empty()) {
      r.status = point_status::failed;
      r.reason = why;
      return true;
    }
    if (i < p.reps.warmup) continue;
    samples["total"].push_back(c.wall);
    samples["user"].push_back(c.user);
    samples["sys"].push_back(c.sys);
    samples["host_peak_rss"].push_back(static_cast<double>(c.max_rss_kib) * 1024.0);
    for (const auto& [name, v] : phases) samples[name].push_back(v);
    if (p.reps.satisfied(samples["total"], seconds_since(timed_start))) {
      r.status = point_status::ok;
      r.verified = true;
      return true;
    }
  }
}

}  // namespace

void run_external_point(const plan& p, const plan_point& pt, double timeout, const std::atomic<bool>* stop, point_record& r, bool& interrupted) {
  const auto start = clock_type::now();
  const auto& x = *p.external;
  auto finish = [&] { r.samples["point_wall"] = {seconds_since(start)}; };
  std::string command;
  for (const auto& [name, cmd] : x.runs)
    if (name == pt.variant) command = cmd;
  if (command.empty()) {
    r.status = point_status::skipped;
    r.reason = "the plan has no command for this variant";
    return finish();
  }
  r.backend = "external";
  nlohmann::json notes = nlohmann::json::object();
  isolation how;
  how.channel = answer_channel::stdout_;
  how.stop = stop;
  how.cwd = x.cwd;
  fs::path input;
  switch (external_input(x, pt, timeout, how, input, notes, r)) {
    case input_state::interrupted:
      interrupted = true;
      return;
    case input_state::failed:
      return finish();
    case input_state::ready:
      break;
  }

  const auto run = expand_command(command, pt.n, pt.seed, input.string());
  notes["command"] = run;
  const auto timed_start = clock_type::now();
  const host_load_meter meter;  // over the runs, warm-up included: what the machine did meanwhile
  double own_cpu = 0;
  std::map<std::string, std::vector<double>> samples;
  if (!time_external_runs(p, run, timeout, start, how, r, samples, own_cpu)) {
    interrupted = true;
    return;
  }
  for (auto& [metric, values] : samples) r.samples[metric] = std::move(values);
  r.notes_json = json_text(notes);
  note_host_load(r, meter.finish(seconds_since(timed_start), own_cpu));
  r.unavailable_json = nlohmann::json{{"energy_cpu", "not measured for external programs"}}.dump();
  finish();
}

}  // namespace ema
