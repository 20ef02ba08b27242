// What crosses the process boundary for one measured point (issue 30, item 5): ema writes a
// point_spec on its worker's stdin and reads a point_answer from the worker's fd 3
// (runner/isolate.hpp, runner/worker.hpp), each as JSON through the one pair of functions here,
// so each field is named once for both sides and a misspelt one cannot compile.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runner/plan.hpp"

namespace ema {

/// One point to measure: which variant at which size and parameters, the input's seed, how to
/// repeat it, whether and how to meter its energy, the idle power to subtract, the input cache.
struct point_spec {
  std::string problem, variant;
  std::uint64_t n = 0;
  std::map<std::string, std::string> params;
  std::uint64_t seed = 0;
  repetition_policy repetitions;
  struct energy_plan {
    bool enabled = true;
    double window = 1;                           ///< seconds of back-to-back runs per sample, at least
    std::string off = "disabled (--no-energy)";  ///< why no energy is measured, where not enabled
    bool operator==(const energy_plan&) const = default;
  } energy;
  /// The idle power the sweep measured before its first point ({"energy_gpu": [W per device],
  /// "energy_cpu": W, "energy_dram": W}), as stored with the experiment.
  nlohmann::json idle = nlohmann::json::object();
  std::string cache_dir;  ///< the input cache's folder ("" none)
  double cache_cap = 0;   ///< its cap in bytes
};

/// What the worker measured: the status and why, whether every run verified, the problem's summary
/// of the output, every sample by metric, the notes (input, variant, energy window), the metrics it
/// could not measure and why, and an error writing ema's own output (which stops the sweep).
struct point_answer {
  std::string status = "ok";
  std::string reason;
  bool verified = false;
  nlohmann::json result = nlohmann::json::object();
  std::map<std::string, std::vector<double>> samples;
  nlohmann::json notes = nlohmann::json::object();
  std::map<std::string, std::string> unavailable;
  std::optional<std::string> output_error;
  /// A serving worker's (`ema __worker --serve`): the CPU seconds this point took in it, and why the
  /// process must not serve another point ("" when it may).
  std::optional<double> cpu_seconds;
  std::string retire;
};

nlohmann::json to_json(const point_spec& s);
/// Throws std::invalid_argument naming the field that is missing or of the wrong type.
point_spec spec_from_json(const nlohmann::json& j);

nlohmann::json to_json(const point_answer& a);
/// An absent field takes its default (an absent status is "failed": the worker said nothing);
/// throws std::invalid_argument naming a field of the wrong type.
point_answer answer_from_json(const nlohmann::json& j);

}  // namespace ema
