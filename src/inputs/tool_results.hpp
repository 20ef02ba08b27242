// Results of other benchmark tools, for `ema fit --from TOOL FILE.json`: users of Google Benchmark,
// nvbench or hyperfine get EMA's analysis (Zudio et al., 003_7e2665a3d38c50fb.txt, the groups of equations, and
// the verdicts of analysis/verdict.hpp) without running their code again. Each reader follows the
// tool's documented JSON output:
//   gbench     Google Benchmark's --benchmark_format=json (or --benchmark_out): "benchmarks", one
//              entry per run; n is one of the benchmark's arguments ("BM_Sort/1024/8" has the
//              positional arguments arg0 = 1024 and arg1 = 8; "BM_Sort/n:1024" the named argument
//              n). Repetitions are the samples of a point; where only aggregates were reported
//              (--benchmark_report_aggregates_only) their median (else mean) is the value and their
//              stddev gives the noise. Errors, BigO and RMS entries are left out.
//   nvbench    nvbench's --json (file version 1): "benchmarks", each with "states"; n is one of the
//              state's axis values, the value a summary (the mean cold GPU time by default), its
//              noise that summary's relative standard deviation over its sample size.
//   hyperfine  hyperfine's --export-json: "results", one per command; n is a parameter of a
//              parameter scan (-P NAME LOW HIGH or -L NAME LIST), each run of "times" a sample.
// Every other argument, axis or parameter becomes a parameter of the series, so one series is one
// benchmark at one setting of everything but n. Times are read as seconds.
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ema {

enum class result_tool { gbench, nvbench, hyperfine };

const char* to_string(result_tool t);
/// "gbench", "nvbench" or "hyperfine"; throws std::invalid_argument naming the accepted ones.
result_tool parse_result_tool(const std::string& s);

struct tool_point {
  double n = 0;
  std::vector<double> samples;  ///< seconds; one value where the tool kept only a summary
  /// The tool's own relative standard error of the value where it reports no samples (NaN: none).
  double rse = std::numeric_limits<double>::quiet_NaN();
};

struct tool_series {
  std::string benchmark;           ///< gbench's family name, nvbench's benchmark, hyperfine's command with {NAME} for n
  std::string params;              ///< every other argument, axis or parameter, a JSON object of strings
  std::string size;                ///< the argument, axis or parameter read as n
  std::vector<tool_point> points;  ///< one per n, ascending
  std::vector<std::string> notes;  ///< how its values were read, where that differs from the rest
};

struct tool_results {
  std::vector<tool_series> series;
  std::string metric;              ///< what was read as the value (gbench's real_time, an nvbench tag, ...)
  std::vector<std::string> notes;  ///< what was left out and why
};

/// Reads `doc`, which came from `name`. `size` names the argument, axis or parameter that is n
/// (empty: gbench's first argument, nvbench's one int64 axis that varies, hyperfine's one
/// parameter; a benchmark without the one named is left out, with a note); `metric` what to read (empty or "total": the tool's headline time):
///   gbench     real_time (default) or cpu_time;
///   nvbench    gpu (nv/cold/time/gpu/mean, default), cpu (nv/cold/time/cpu/mean), batch
///              (nv/batch/time/gpu/mean), or any summary tag;
///   hyperfine  time (wall, default), user or system (their means).
/// Throws std::invalid_argument naming what is wrong: not that tool's JSON, no size to read, a
/// metric it does not have, a value that is not a positive number.
tool_results parse_tool_results(result_tool tool, const nlohmann::json& doc, const std::string& name, const std::string& size,
                                const std::string& metric);

/// Reads a file as parse_tool_results; throws usage_error when it cannot be read, std::invalid_argument
/// when it is not JSON or not the tool's.
tool_results read_tool_results(result_tool tool, const std::string& path, const std::string& size, const std::string& metric);

}  // namespace ema
