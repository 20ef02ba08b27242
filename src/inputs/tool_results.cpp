#include "inputs/tool_results.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "inputs/text_file.hpp"
#include "measure/memory.hpp"

namespace ema {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

/// A JSON number, or a string holding one (nvbench writes its values as strings).
std::optional<double> number_of(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const auto& s = v.get_ref<const std::string&>();
  double x = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return x;
}

/// Refuses a document that is not an object with the array `member` that `tool`'s JSON has.
void require_array(const json& doc, const char* member, const char* tool, const std::string& file) {
  if (!doc.is_object() || !doc.contains(member) || !doc[member].is_array())
    bad(fmt::format("{} is not {} JSON: it has no \"{}\" array", file, tool, member));
}

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

/// A positive, finite size read from `v`; `where` names it in the error.
double size_of(const json& v, const std::string& where) {
  const auto n = number_of(v);
  if (!n || !std::isfinite(*n) || *n < 1)
    bad(fmt::format("{}: the size {} is not a number of at least 1 (ema fits cost against problem sizes n >= 1)", where, text_of(v)));
  return *n;
}

double seconds_of(const json& v, double scale, const std::string& where) {
  const auto t = number_of(v);
  if (!t || !std::isfinite(*t) || *t < 0) bad(fmt::format("{}: the time {} is not a number of 0 or more", where, text_of(v)));
  return *t * scale;
}

/// Collects the samples of each (benchmark, params, n) in order of first appearance.
class collector {
 public:
  tool_series& series(const std::string& benchmark, const std::map<std::string, std::string>& params, const std::string& size) {
    const json p(params);
    const auto key = benchmark + '\n' + p.dump();
    auto [it, fresh] = index_.try_emplace(key, out_.size());
    if (fresh) out_.push_back({benchmark, p.dump(), size, {}, {}});
    return out_[it->second];
  }
  tool_point& at(const std::string& benchmark, const std::map<std::string, std::string>& params, const std::string& size, double n) {
    auto& points = series(benchmark, params, size).points;
    auto pt = std::find_if(points.begin(), points.end(), [&](const tool_point& q) { return q.n == n; });
    if (pt == points.end()) pt = points.insert(points.end(), tool_point{n, {}, std::numeric_limits<double>::quiet_NaN()});
    return *pt;
  }
  std::vector<tool_series> take() {
    for (auto& s : out_) std::sort(s.points.begin(), s.points.end(), [](const tool_point& a, const tool_point& b) { return a.n < b.n; });
    return std::move(out_);
  }

 private:
  std::map<std::string, std::size_t> index_;
  std::vector<tool_series> out_;
};

void note_left_out(std::vector<std::string>& notes, int count, const std::string& why) {
  if (count) notes.push_back(fmt::format("{} {} left out: {}", count, count == 1 ? "entry" : "entries", why));
}

// ---- Google Benchmark ------------------------------------------------------------------------

double gbench_unit(const json& e, const std::string& where) {
  const auto u = e.value("time_unit", std::string("ns"));
  if (u == "ns") return 1e-9;
  if (u == "us") return 1e-6;
  if (u == "ms") return 1e-3;
  if (u == "s") return 1;
  bad(fmt::format("{}: unknown time_unit '{}' (ns, us, ms or s)", where, u));
}

struct gbench_name {
  std::string family;
  std::vector<std::pair<std::string, std::string>> args;  ///< in order: arg0.., or the given names
  std::map<std::string, std::string> options;             ///< threads, and what else the name carries
};

/// "BM_Sort/1024/8/threads:4/real_time" → family BM_Sort, args arg0=1024 arg1=8, threads=4. The
/// options a benchmark's name can carry (benchmark.h: iterations, repeats, min_time,
/// min_warmup_time, threads, real_time, process_time, manual_time) are not arguments.
gbench_name split_gbench_name(const std::string& name) {
  gbench_name g;
  std::size_t at = name.find('/');
  g.family = name.substr(0, at);
  int position = 0;
  while (at != std::string::npos) {
    const auto next = name.find('/', at + 1);
    const auto part = name.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    at = next;
    const auto colon = part.find(':');
    const auto key = part.substr(0, colon);
    static const std::set<std::string> option_keys = {"iterations", "repeats", "min_time", "min_warmup_time", "threads"};
    static const std::set<std::string> option_words = {"real_time", "process_time", "manual_time"};
    if (colon != std::string::npos && option_keys.count(key)) {
      if (key == "threads") g.options["threads"] = part.substr(colon + 1);
    } else if (colon == std::string::npos && option_words.count(part)) {
      continue;
    } else if (colon != std::string::npos) {
      g.args.emplace_back(key, part.substr(colon + 1));
      ++position;
    } else {
      g.args.emplace_back(fmt::format("arg{}", position++), part);
    }
  }
  return g;
}

/// A run of Google Benchmark placed in a series: its family, its other arguments and options as
/// parameters, the argument read as n and n.
struct gbench_place {
  std::string family;
  std::map<std::string, std::string> params;
  std::string size;
  double n = 0;
};

/// Places runs by their names; a run without the argument named by `size` is left out, its family
/// remembered (with one example) for the note that says so.
struct gbench_placer {
  const std::string& size;
  std::set<std::string> lacking;
  std::string lacking_example;

  std::optional<gbench_place> operator()(const std::string& run, const std::string& where) {
    const auto g = split_gbench_name(run);
    if (g.args.empty())
      bad(fmt::format("{}: benchmark '{}' has no argument to read n from; register it with ->Arg(n) or ->Range(lo, hi)", where, run));
    std::size_t pick = 0;
    if (!size.empty()) {
      auto it = std::find_if(g.args.begin(), g.args.end(), [&](const auto& a) { return a.first == size; });
      if (it == g.args.end()) {
        if (lacking.insert(g.family).second && lacking_example.empty()) {
          std::string have;
          for (const auto& a : g.args) have += (have.empty() ? "" : ", ") + a.first;
          lacking_example = fmt::format("benchmark '{}' has no argument '{}' (its arguments: {})", run, size, have);
        }
        return std::nullopt;
      }
      pick = static_cast<std::size_t>(it - g.args.begin());
    }
    std::map<std::string, std::string> params = g.options;
    for (std::size_t i = 0; i < g.args.size(); ++i)
      if (i != pick) params[g.args[i].first] = g.args[i].second;
    return gbench_place{g.family, params, g.args[pick].first, size_of(json(g.args[pick].second), where)};
  }
};

/// A run reported by its aggregates only (--benchmark_report_aggregates_only).
struct gbench_aggregate {
  std::optional<double> median, mean, stddev;
  double repetitions = 0, scale = 1;
};

/// The runs reported by aggregates only, as points: the median (else mean) is the value, the
/// stddev over the repetitions its noise.
void add_aggregates(const std::map<std::string, gbench_aggregate>& aggregates, gbench_placer& place, const std::string& file, collector& c) {
  for (const auto& [run, a] : aggregates) {
    const auto value = a.median ? a.median : a.mean;
    if (!value) continue;
    const auto at = place(run, file);
    if (!at) continue;
    auto& p = c.at(at->family, at->params, at->size, at->n);
    p.samples = {*value * a.scale};
    if (a.stddev && a.mean && *a.mean > 0 && a.repetitions > 1) p.rse = *a.stddev / *a.mean / std::sqrt(a.repetitions);
    auto& notes = c.series(at->family, at->params, at->size).notes;
    const std::string how = "reported by aggregates only: the median (else mean) of its repetitions is the value";
    if (notes.empty()) notes.push_back(how);
  }
}

tool_results read_gbench(const json& doc, const std::string& file, const std::string& size, const std::string& metric) {
  require_array(doc, "benchmarks", "Google Benchmark", file);
  tool_results r;
  r.metric = metric.empty() || metric == "total" ? "real_time" : metric;
  if (r.metric != "real_time" && r.metric != "cpu_time") bad(fmt::format("Google Benchmark's results have real_time and cpu_time, not '{}'", metric));
  // Runs reported by their iterations, and those reported by aggregates only.
  std::set<std::string> iterated;
  for (const auto& e : doc["benchmarks"])
    if (e.is_object() && e.value("run_type", std::string("iteration")) == "iteration" && !e.value("error_occurred", false))
      iterated.insert(e.value("run_name", e.value("name", std::string())));
  std::map<std::string, gbench_aggregate> aggregates;
  int errors = 0, complexity = 0;
  collector c;
  gbench_placer place{size, {}, {}};
  std::size_t index = 0;
  for (const auto& e : doc["benchmarks"]) {
    const auto where = fmt::format("{}: benchmarks[{}]", file, index++);
    if (!e.is_object()) bad(fmt::format("{} is not an object", where));
    if (e.value("error_occurred", false)) {
      ++errors;
      continue;
    }
    const auto type = e.value("run_type", std::string("iteration"));
    const auto run = e.value("run_name", e.value("name", std::string()));
    if (run.empty()) bad(fmt::format("{} has no name", where));
    if (type == "aggregate") {
      const auto agg = e.value("aggregate_name", std::string());
      if (agg == "BigO" || agg == "RMS") {
        ++complexity;
        continue;
      }
      if (iterated.count(run) || (agg != "median" && agg != "mean" && agg != "stddev")) continue;
      if (!e.contains(r.metric)) bad(fmt::format("{} has no {}", where, r.metric));
      auto& a = aggregates[run];
      a.scale = gbench_unit(e, where);
      const double v = seconds_of(e[r.metric], 1, where);
      (agg == "median" ? a.median : agg == "mean" ? a.mean : a.stddev) = v;
      a.repetitions = std::max(a.repetitions, e.value("repetitions", 0.0));
      continue;
    }
    if (type != "iteration") continue;
    if (!e.contains(r.metric)) bad(fmt::format("{} has no {}", where, r.metric));
    const double t = seconds_of(e[r.metric], gbench_unit(e, where), where);
    if (const auto at = place(run, where)) c.at(at->family, at->params, at->size, at->n).samples.push_back(t);
  }
  add_aggregates(aggregates, place, file, c);
  note_left_out(r.notes, errors, "the benchmark reported an error");
  note_left_out(r.notes, complexity, "Google Benchmark's own complexity fit (BigO, RMS)");
  r.series = c.take();
  if (!place.lacking.empty()) {
    if (r.series.empty()) bad(fmt::format("{}: {}", file, place.lacking_example));
    r.notes.push_back(fmt::format("{} benchmark famil{} without the argument '{}' left out: {}", place.lacking.size(),
                                  place.lacking.size() == 1 ? "y" : "ies", size, fmt::join(place.lacking, ", ")));
  }
  return r;
}

// ---- nvbench ---------------------------------------------------------------------------------

std::string nvbench_tag(const std::string& metric) {
  if (metric.empty() || metric == "total" || metric == "gpu") return "nv/cold/time/gpu/mean";
  if (metric == "cpu") return "nv/cold/time/cpu/mean";
  if (metric == "batch") return "nv/batch/time/gpu/mean";
  return metric;
}

/// The "value" of the summary tagged `tag` in a state's "summaries"; nullopt when absent.
std::optional<double> nvbench_summary(const json& summaries, const std::string& tag) {
  for (const auto& s : summaries) {
    if (!s.is_object() || s.value("tag", std::string()) != tag || !s.contains("data")) continue;
    for (const auto& d : s["data"])
      if (d.is_object() && d.value("name", std::string()) == "value" && d.contains("value")) return number_of(d["value"]);
  }
  return std::nullopt;
}

/// The axis of an nvbench benchmark that is n when none is named: its one int64 axis whose value
/// varies.
std::string nvbench_size_axis(const json& b, const std::string& bwhere, const std::string& name) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& st : b["states"])
    if (st.is_object() && st.contains("axis_values") && st["axis_values"].is_array())
      for (const auto& v : st["axis_values"])
        if (v.is_object() && v.value("type", std::string()) == "int64")
          values[v.value("name", std::string())].insert(text_of(v.value("value", json())));
  std::vector<std::string> varying;
  for (const auto& [k, vs] : values)
    if (vs.size() > 1) varying.push_back(k);
  if (varying.size() != 1)
    bad(fmt::format("{}: benchmark '{}' has {} int64 axes that vary ({}); name the one that is n with --size", bwhere, name, varying.size(),
                    varying.empty() ? std::string("none") : fmt::format("{}", fmt::join(varying, ", "))));
  return varying.front();
}

tool_results read_nvbench(const json& doc, const std::string& file, const std::string& size, const std::string& metric) {
  require_array(doc, "benchmarks", "nvbench", file);
  tool_results r;
  r.metric = nvbench_tag(metric);
  // The noise of a mean: its summary's relative standard deviation over the number of samples.
  std::string stdev_tag, samples_tag;
  if (r.metric.size() > 5 && r.metric.ends_with("/mean")) {
    stdev_tag = r.metric.substr(0, r.metric.size() - 5) + "/stdev/relative";
    samples_tag = r.metric.substr(0, r.metric.find('/', 3)) + "/sample_size";  // nv/cold/sample_size
  }
  collector c;
  int skipped = 0, missing = 0;
  std::set<int> devices;
  for (const auto& b : doc["benchmarks"])
    if (b.is_object() && b.contains("states") && b["states"].is_array())
      for (const auto& st : b["states"])
        if (st.is_object()) devices.insert(st.value("device", 0));
  for (std::size_t bi = 0; bi < doc["benchmarks"].size(); ++bi) {
    const auto& b = doc["benchmarks"][bi];
    const auto bwhere = fmt::format("{}: benchmarks[{}]", file, bi);
    if (!b.is_object() || !b.contains("states") || !b["states"].is_array())
      bad(fmt::format("{} is not an nvbench benchmark: it has no \"states\" array", bwhere));
    const auto name = b.value("name", fmt::format("benchmark {}", bi));
    const std::string axis = size.empty() ? nvbench_size_axis(b, bwhere, name) : size;
    for (std::size_t si = 0; si < b["states"].size(); ++si) {
      const auto& st = b["states"][si];
      const auto where = fmt::format("{}.states[{}]", bwhere, si);
      if (!st.is_object()) bad(fmt::format("{} is not an object", where));
      if (st.value("is_skipped", false)) {
        ++skipped;
        continue;
      }
      if (!st.contains("summaries") || !st["summaries"].is_array())
        bad(fmt::format("{} has no \"summaries\" array (nvbench JSON before file version 1 is not read)", where));
      std::map<std::string, std::string> params;
      std::optional<double> n;
      if (st.contains("axis_values") && st["axis_values"].is_array())
        for (const auto& v : st["axis_values"]) {
          const auto k = v.value("name", std::string());
          if (k == axis)
            n = size_of(v.value("value", json()), where);
          else
            params[k] = text_of(v.value("value", json()));
        }
      if (!n) bad(fmt::format("{} has no axis '{}'", where, axis));
      if (devices.size() > 1) params["device"] = std::to_string(st.value("device", 0));
      const auto value = nvbench_summary(st["summaries"], r.metric);
      if (!value) {
        ++missing;
        continue;
      }
      if (!std::isfinite(*value) || *value < 0) bad(fmt::format("{}: {} is {}, not a time", where, r.metric, *value));
      auto& p = c.at(name, params, axis, *n);
      p.samples.push_back(*value);
      if (!stdev_tag.empty()) {
        const auto rel = nvbench_summary(st["summaries"], stdev_tag);
        const auto k = nvbench_summary(st["summaries"], samples_tag);
        if (rel && k && *k > 1) p.rse = *rel / std::sqrt(*k);
      }
    }
  }
  note_left_out(r.notes, skipped, "nvbench skipped the state");
  note_left_out(r.notes, missing, fmt::format("the state has no summary {}", r.metric));
  r.series = c.take();
  if (r.series.empty() && missing) bad(fmt::format("{}: no state has the summary '{}'", file, r.metric));
  return r;
}

// ---- hyperfine -------------------------------------------------------------------------------

/// How a parameter's value is found in a command to make its template: as a whole word ("-n 1024"),
/// or, for a number, anywhere no digit continues it ("nums_1024.txt", "input-1024.bin").
enum class value_bounds { word, number };

/// `command` with each occurrence of `value` bounded as `bounds` says replaced by "{name}".
std::string templated(std::string command, const std::string& value, const std::string& name, value_bounds bounds) {
  if (value.empty()) return command;
  auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_'; };
  auto digit = [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; };
  const bool numeric = value.find_first_not_of("0123456789.") == std::string::npos;
  if (bounds == value_bounds::number && !numeric) return command;
  const auto mark = "{" + name + "}";
  for (std::size_t at = command.find(value); at != std::string::npos; at = command.find(value, at)) {
    const std::size_t end = at + value.size();
    bool left = at == 0 || !word(command[at - 1]), right = end == command.size() || !word(command[end]);
    if (bounds == value_bounds::number) {  // no digit, nor a decimal point between digits, on either side
      left = at == 0 || !(digit(command[at - 1]) || (command[at - 1] == '.' && at >= 2 && digit(command[at - 2])));
      right = end == command.size() || !(digit(command[end]) || (command[end] == '.' && end + 1 < command.size() && digit(command[end + 1])));
    }
    if (left && right) {
      command.replace(at, value.size(), mark);
      at += mark.size();
    } else {
      at += value.size();
    }
  }
  return command;
}

/// One result of hyperfine: its command, the parameter read as n, every parameter, and its times.
struct hyperfine_entry {
  std::string command, axis, where;
  std::map<std::string, std::string> params;  ///< every parameter, n's included
  double n = 0;
  std::vector<double> samples;
};

/// Reads one of hyperfine's results; `means_only` is set where it kept only a mean of the metric.
hyperfine_entry read_hyperfine_entry(const json& e, std::string where_text, const std::string& size, const std::string& metric, bool& means_only) {
  hyperfine_entry x;
  x.where = std::move(where_text);
  const auto& where = x.where;
  if (!e.is_object()) bad(fmt::format("{} is not an object", where));
  const auto command = e.value("command", std::string());
  std::map<std::string, std::string> params;
  if (e.contains("parameters") && e["parameters"].is_object())
    for (const auto& [k, v] : e["parameters"].items()) params[k] = text_of(v);
  if (params.empty())
    bad(
        fmt::format("{}: '{}' has no parameter to read n from; run hyperfine with a parameter scan, -P NAME LOW HIGH or "
                    "-L NAME LIST, and export it with --export-json",
                    where, command));
  std::string axis = size;
  if (axis.empty()) {
    if (params.size() != 1) {
      std::vector<std::string> names;
      for (const auto& kv : params) names.push_back(kv.first);
      bad(fmt::format("{}: the results have {} parameters ({}); name the one that is n with --size", where, params.size(), fmt::join(names, ", ")));
    }
    axis = params.begin()->first;
  }
  auto it = params.find(axis);
  if (it == params.end()) bad(fmt::format("{}: '{}' has no parameter '{}'", where, command, axis));
  x.n = size_of(json(it->second), where);
  x.command = command;
  x.axis = axis;
  x.params = std::move(params);
  if (metric == "time" && e.contains("times") && e["times"].is_array() && !e["times"].empty()) {
    for (const auto& t : e["times"]) x.samples.push_back(seconds_of(t, 1, where));
  } else {
    const auto key = metric == "time" ? std::string(e.contains("median") ? "median" : "mean") : metric;
    if (!e.contains(key)) bad(fmt::format("{} has no {}", where, key));
    x.samples.push_back(seconds_of(e[key], 1, where));
    means_only = true;
  }
  return x;
}

tool_results read_hyperfine(const json& doc, const std::string& file, const std::string& size, const std::string& metric) {
  require_array(doc, "results", "hyperfine", file);
  tool_results r;
  r.metric = metric.empty() || metric == "total" ? "time" : metric;
  if (r.metric != "time" && r.metric != "user" && r.metric != "system")
    bad(fmt::format("hyperfine's results have time, user and system, not '{}'", metric));
  std::vector<hyperfine_entry> entries;
  bool means_only = false;
  for (std::size_t i = 0; i < doc["results"].size(); ++i)
    entries.push_back(read_hyperfine_entry(doc["results"][i], fmt::format("{}: results[{}]", file, i), size, r.metric, means_only));
  // A command's series is its template: each parameter's value replaced by its name. A value is
  // found as a whole word ("-n 1024") or, a number, inside a word ("nums_1024.txt"); each command
  // takes the template more of the results share (the whole word on a tie), so every size of
  // `sort -n nums_{n}.txt` is one series and `./prog2 {n}` keeps its 2.
  auto key_of = [](const hyperfine_entry& x, value_bounds bounds) {
    std::string key = x.command;
    for (const auto& [k, v] : x.params) key = templated(key, v, k, bounds);
    std::string label = key;
    for (const auto& [k, v] : x.params)
      if (k != x.axis) key += "\x1f" + k + "=" + v;
    return std::make_pair(std::move(label), std::move(key));
  };
  std::map<std::string, int> sharing[2];
  for (const auto& x : entries)
    for (const auto b : {value_bounds::word, value_bounds::number}) ++sharing[static_cast<int>(b)][key_of(x, b).second];
  collector c;
  for (auto& x : entries) {
    const auto word = key_of(x, value_bounds::word), number = key_of(x, value_bounds::number);
    const bool inside = sharing[1][number.second] > sharing[0][word.second];
    auto params = x.params;
    params.erase(x.axis);
    auto& p = c.at(inside ? number.first : word.first, params, x.axis, x.n);
    for (const double v : x.samples) p.samples.push_back(v);
  }
  if (means_only) r.notes.push_back(fmt::format("hyperfine keeps only the mean of {}: one value per point", r.metric));
  r.series = c.take();
  return r;
}

}  // namespace

const char* to_string(result_tool t) {
  switch (t) {
    case result_tool::gbench:
      return "gbench";
    case result_tool::nvbench:
      return "nvbench";
    case result_tool::hyperfine:
      return "hyperfine";
  }
  return "?";
}

result_tool parse_result_tool(const std::string& s) {
  if (s == "gbench") return result_tool::gbench;
  if (s == "nvbench") return result_tool::nvbench;
  if (s == "hyperfine") return result_tool::hyperfine;
  bad(fmt::format("unknown results format '{}': csv, gbench, nvbench or hyperfine", s));
}

tool_results parse_tool_results(result_tool tool, const json& doc, const std::string& name, const std::string& size, const std::string& metric) {
  tool_results r;
  try {
    switch (tool) {
      case result_tool::gbench:
        r = read_gbench(doc, name, size, metric);
        break;
      case result_tool::nvbench:
        r = read_nvbench(doc, name, size, metric);
        break;
      case result_tool::hyperfine:
        r = read_hyperfine(doc, name, size, metric);
        break;
    }
  } catch (const json::exception& e) {  // a field of another type than the tool writes: the file's fault
    bad(fmt::format("{} is not {}'s results: a field has the wrong type ({})", name, to_string(tool), e.what()));
  }
  if (r.series.empty()) bad(fmt::format("{} holds no result to fit", name));
  return r;
}

tool_results read_tool_results(result_tool tool, const std::string& path, const std::string& size, const std::string& metric) {
  require_regular_file(path, fmt::format("the {} results", to_string(tool)));
  // Parsed whole, in memory (about ten bytes a byte of JSON): a benchmark tool's results are
  // kilobytes to megabytes, so a file past max_bytes is refused rather than read into gigabytes.
  constexpr std::uintmax_t max_bytes = std::uintmax_t{64} << 20;
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (!ec && bytes > max_bytes)
    throw usage_error(
        fmt::format("{} holds {} bytes; results of more than 64 MiB are not read (split the run, or --csv of the columns)", path, bytes));
  // Parsed JSON takes up to about 24 bytes a byte of text (an array of one-digit numbers), and
  // memory that runs out midway cannot be recovered from (the parser's unwinding allocates too):
  // checked before, against what this process may still allocate.
  const double need = 24.0 * static_cast<double>(ec ? 0 : bytes) + static_cast<double>(std::uintmax_t{16} << 20);
  if (const auto left = static_cast<double>(memory_this_process_may_add()); need > left)
    throw usage_error(
        fmt::format("{}: not enough memory to read it: {:.0f} MiB may be needed (24 bytes a byte of JSON), {:.0f} MiB is left "
                    "to ema (the machine's available memory, ulimit and control group)",
                    path, need / 1048576, left / 1048576));
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw usage_error(fmt::format("cannot read {}", path));
    std::string text(static_cast<std::size_t>(max_bytes) + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw usage_error(fmt::format("{} cannot be read (the file system failed a read)", path));
    if (text.size() > max_bytes) throw usage_error(fmt::format("{} grew past 64 MiB while it was read", path));
    bool deep = false;
    json doc = parse_json(text, &deep);
    if (deep) bad(fmt::format("{} is nested more than {} levels deep; no benchmark tool writes that", path, json_depth_limit));
    if (doc.is_discarded()) bad(fmt::format("{} is not JSON", path));
    text = std::string();
    return parse_tool_results(tool, doc, path, size, metric);
  } catch (const std::bad_alloc&) {
    throw usage_error(fmt::format("{}: not enough memory to read it (about ten bytes are needed a byte of JSON)", path));
  }
}

}  // namespace ema
