// Runs a command in a child process of its own, so that a point that crashes, hangs or exhausts
// memory cannot take the sweep down, and so that whatever the point starts ends with it.
//
// Between ema and the command stands a guard, a forked copy of ema that is a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER): every process the command leaves behind, even one that put
// itself in a new session or process group (setsid, a double fork), is re-parented to the guard,
// which kills them all once the command has ended. The guard dies with ema: it receives SIGTERM
// when ema exits or is killed, even by SIGKILL (PR_SET_PDEATHSIG), and then kills the command and
// everything under it. The command gets its input on stdin and writes its answer to file
// descriptor 3 (an ema worker) or to its standard output (a user's program); what ema keeps of
// either is bounded, so a child that writes without end costs ema no memory. The timeout and an
// interruption (`stop`) are enforced by the guard's killing; ema never waits on a pipe held open
// by a process that escaped (it stops reading a second after the command has ended).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

namespace ema {

struct child_outcome {
  bool exited = false;  ///< exited normally (exit_code valid)
  int exit_code = 0;
  int signal = 0;                ///< the signal that ended it, when it did not exit
  bool timed_out = false;        ///< killed by us at the deadline
  bool interrupted = false;      ///< killed by us because `stop` was raised
  std::string answer;            ///< fd 3 (whole, up to answer_limit); or the kept lines of stdout
  std::string stdout_tail;       ///< the last few KiB of standard output (stdout channel)
  std::string stderr_tail;       ///< the last few KiB of stderr
  std::size_t output_bytes = 0;  ///< bytes the child wrote to its answer channel in all
  /// Why ema stopped keeping the child's output (an answer over answer_limit, more kept lines than
  /// kept_limit, a kept line over line_limit); the child was killed. Empty when all went well.
  std::string output_problem;
  double wall = 0;           ///< seconds from the start of the command to its end
  double user = 0, sys = 0;  ///< CPU seconds of the command and the descendants it waited for
  long max_rss_kib = 0;      ///< the command's peak resident memory
};

/// Where the child's answer is read from: file descriptor 3 (an ema worker), or its standard
/// output (a user's program: only the lines starting with `keep_prefix` are kept, in `answer`).
enum class answer_channel { fd3, stdout_ };

struct isolation {
  double timeout = 300;                     ///< seconds, from the start
  const std::atomic<bool>* stop = nullptr;  ///< raised: kill the child and report `interrupted`
  answer_channel channel = answer_channel::fd3;
  std::string cwd;  ///< the child's working directory (empty: ema's)
  /// Variables set in the command's environment ("NAME=VALUE"), each replacing ema's own of that
  /// name; the rest of ema's environment is passed on. OpenMP reads its binding (OMP_PROC_BIND,
  /// OMP_PLACES) once, as a process starts: a worker's placement can only be set this way.
  std::vector<std::string> env;
  std::size_t answer_limit = std::size_t{256} << 20;  ///< fd3: most bytes of answer kept
  std::string keep_prefix = "ema-phase";              ///< stdout: the lines kept
  std::size_t kept_limit = std::size_t{16} << 20;     ///< stdout: most bytes of kept lines
  std::size_t line_limit = 4096;                      ///< stdout: longest kept line
};

/// Runs `argv` (argv[0] is the executable path). Never throws for the child's failures; throws
/// std::runtime_error only when the child cannot be started at all.
child_outcome run_isolated(const std::vector<std::string>& argv, const std::string& input, const isolation& how);

/// The same with a timeout, a stop flag and a channel.
child_outcome run_isolated(const std::vector<std::string>& argv, const std::string& input, double timeout_seconds,
                           const std::atomic<bool>* stop = nullptr, answer_channel channel = answer_channel::fd3);

/// The end of a child's output for a reason: trailing blank space dropped, at most `keep` bytes
/// (from the end, "…" before), as valid UTF-8 whatever bytes the child wrote.
std::string output_tail(std::string text, std::size_t keep = 600);

/// "signal 11 (Segmentation fault)".
std::string describe_signal(int sig);

}  // namespace ema
