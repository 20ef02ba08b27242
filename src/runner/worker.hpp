// The child side of a measurement point: generate the input from its seed, warm up, repeat
// until the policy is satisfied, verify every run, measure energy over a counter-aligned window,
// and answer with every sample. docs/measurement.md gives the rules.
#pragma once

#include "runner/protocol.hpp"

namespace ema {

/// Runs one point in this process (runner/protocol.hpp: what it is given and answers).
point_answer run_point(const point_spec& spec);

/// `ema __worker`: reads a spec on stdin, writes run_point's answer on fd 3. Returns the exit code.
int worker_main();

/// `ema __worker --serve`: one point after another, each spec a frame on stdin and each answer a
/// frame on fd 3 (runner/isolate.hpp worker_session), until EOF. Each point's peak resident memory
/// is its own (the process's peak is reset before it, /proc/self/clear_refs) and its answer carries
/// its CPU seconds; a process whose peak cannot be reset asks to be retired after its first point.
int worker_serve();

/// `ema __probe`: measures the ceilings, writes them on fd 3.
int probe_main();

}  // namespace ema
