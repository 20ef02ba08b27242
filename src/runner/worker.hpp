// The child side of a measurement point: generate the input from its seed, warm up, repeat
// until the policy is satisfied, verify every run, measure energy over a counter-aligned window,
// and answer with every sample. docs/measurement.md gives the rules.
#pragma once

#include <nlohmann/json.hpp>

namespace ema {

/// Runs one point in this process. `spec`: {"problem", "variant", "n", "params", "seed",
/// "repetitions", "energy", "idle"}. Answer: {"status", "reason", "verified", "result",
/// "samples": {metric: [values]}, "notes", "unavailable": {metric: reason}}.
nlohmann::json run_point(const nlohmann::json& spec);

/// `ema __worker`: reads a spec on stdin, writes run_point's answer on fd 3. Returns the exit code.
int worker_main();

/// `ema __probe`: measures the ceilings, writes them on fd 3.
int probe_main();

}  // namespace ema
