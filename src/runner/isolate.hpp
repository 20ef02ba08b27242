// Runs a command in a child process of its own, so that a point that crashes, hangs or exhausts
// memory cannot take the sweep down: the child gets its input on stdin and writes its answer to
// file descriptor 3; the parent keeps the tail of its stderr, enforces a timeout by killing the
// child's whole process group, and notices an interruption of its own.
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace ema {

struct child_outcome {
  bool exited = false;     ///< exited normally (exit_code valid)
  int exit_code = 0;
  int signal = 0;          ///< the signal that ended it, when it did not exit
  bool timed_out = false;  ///< killed by us at the deadline
  bool interrupted = false;  ///< killed by us because `stop` was raised
  std::string answer;      ///< everything written to fd 3
  std::string stderr_tail;  ///< the last few KiB of stderr
  double wall = 0;          ///< seconds
  double user = 0, sys = 0;  ///< CPU seconds of the child and the descendants it waited for
  long max_rss_kib = 0;     ///< the child's peak resident memory
};

/// Where the child's answer is read from: file descriptor 3 (an ema worker), or its standard
/// output (a user's program, whose stdout may carry phase lines).
enum class answer_channel { fd3, stdout_ };

/// Runs `argv` (argv[0] is the executable path). Never throws for the child's failures; throws
/// std::runtime_error only when the child cannot be started at all.
child_outcome run_isolated(const std::vector<std::string>& argv, const std::string& input, double timeout_seconds,
                           const std::atomic<bool>* stop = nullptr, answer_channel channel = answer_channel::fd3);

/// "signal 11 (Segmentation fault)".
std::string describe_signal(int sig);

}  // namespace ema
