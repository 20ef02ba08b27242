// The parent side of a sweep: runs each point of a plan in its own child process (a worker of
// ema's, or a user's program for `ema exec`), interprets how the child ended (answer, crash,
// timeout, memory), and commits each point to the database as it finishes, so an interruption
// loses at most the point in flight. A calibrated plan (`--budget`) grows its sizes as it runs
// (runner/calibrate.hpp); the points it decides are added to the stored plan before they run, so
// `--resume` continues it too.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "measure/host_load.hpp"
#include "runner/isolate.hpp"
#include "runner/protocol.hpp"
#include "runner/calibrate.hpp"
#include "runner/plan.hpp"
#include "store/database.hpp"

namespace ema {

struct sweep_settings {
  std::string worker;  ///< the executable that understands `__worker`
  /// How the sweep shows its progress on stderr: not at all; one line drawn over itself (a
  /// terminal); or, where stderr is a pipe or a file, a line when a problem starts and at most one
  /// every `line_every` seconds between.
  enum class progress_style { none, terminal, lines };
  progress_style progress = progress_style::none;
  double line_every = 10;
  const std::atomic<bool>* stop = nullptr;  ///< raised by SIGINT/SIGTERM
};

struct sweep_result {
  int run = 0, failed = 0, skipped = 0, already_done = 0;
  /// Growth points of a calibrated sweep that ran past the point timeout: the way a track is meant
  /// to stop growing (calibration.md), stored as timeouts but not counted as failures.
  int growth_timeouts = 0;
  /// Settle points past the point timeout after their track measured a smaller size: a cost the
  /// sizes measured did not foretell, beside a range already measured; counted apart as growth's.
  int settle_timeouts = 0;
  bool interrupted = false;
  std::string output_error;  ///< a file a point was asked to write could not be written: the sweep stopped there
};

/// Runs the points of `p` that `experiment_id` has not recorded yet, then, for a calibrated plan,
/// grows and fills its tracks until they stop. `p` and the stored plan gain the points it adds.
sweep_result run_sweep(database& db, std::int64_t experiment_id, plan& p, const nlohmann::json& idle, const sweep_settings& settings);

/// Turns how a worker child ended (or, for a kept worker, answered) into a point record's status,
/// reason, samples and verdict; `output_failure`, where given, gets the message of a file the point
/// could not write, and `answer`, where given, the worker's answer as read (its defaults where none).
void interpret_child(const child_outcome& child, double timeout, point_record& record, std::string* output_failure = nullptr,
                     point_answer* answer = nullptr);

/// Adds to a point's notes what the machine did while it ran (measure/host_load.hpp): `host_load`,
/// and `disturbed` with the reason where other processes or the hypervisor took the CPUs it needed.
void note_host_load(point_record& record, const std::optional<host_load>& load);

/// Why a point of a variant on `backend` at size n would not fit the memory free now, predicted from
/// the points measured (`obs`, ascending n; calibrate.hpp predict_bytes): over 80% of the host's
/// available memory or of its devices' free memory; "" when it would fit or nothing was measured.
std::string memory_refusal(const std::vector<observation>& obs, double n, const std::string& backend);

}  // namespace ema
