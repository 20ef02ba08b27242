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
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ema {

struct child_outcome {
  bool exited = false;  ///< exited normally (exit_code valid)
  int exit_code = 0;
  int signal = 0;            ///< the signal that ended it, when it did not exit
  bool timed_out = false;    ///< killed by us at the deadline
  bool interrupted = false;  ///< killed by us because `stop` was raised
  /// A worker_session's command answered and is still running: `answer` holds its answer frame,
  /// `wall` the seconds from the request to the answer, and exited/signal/usage are not set.
  bool answered = false;
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

/// A worker kept running between requests (`ema __worker --serve`), under the same guard as
/// run_isolated: each request is a frame written on its stdin, each answer a frame it writes on
/// file descriptor 3. A frame is its length in bytes as decimal digits, a newline, and that many
/// bytes (write_frame, read_frame). The timeout and the stop flag hold per request; past either,
/// or when the command ends or its answer breaks a limit, the command and everything under it are
/// killed as with run_isolated and the session has ended (alive() is false).
class worker_session {
 public:
  /// Starts `argv` (argv[0] the executable) with `how`'s environment and folder; its channel must be
  /// fd3 and its timeout is not used (each request has its own). std::runtime_error when it cannot start.
  worker_session(const std::vector<std::string>& argv, const isolation& how);
  ~worker_session();  ///< end(): a running command gets EOF, a grace, then SIGKILL
  worker_session(const worker_session&) = delete;
  worker_session& operator=(const worker_session&) = delete;

  /// Sends one request and waits for its answer frame (`answered`), the command's end (how it
  /// ended, as run_isolated reports it), `timeout` seconds or `stop`. Only while alive().
  child_outcome exchange(const std::string& request, double timeout, const std::atomic<bool>* stop = nullptr);
  /// Whether the command still runs, as far as can be seen now (what it or its guard wrote is read first).
  bool alive();
  int requests() const;  ///< requests sent so far
  /// Ends the command: EOF on its stdin and up to `grace` seconds to exit, then it is killed.
  void end(double grace = 2.0);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
  int requests_ = 0;
};

/// A frame: `payload`'s length in decimal, a newline, the payload.
std::string frame(const std::string& payload);

/// The end of a child's output for a reason: trailing blank space dropped, at most `keep` bytes
/// (from the end, "…" before), as valid UTF-8 whatever bytes the child wrote.
std::string output_tail(std::string text, std::size_t keep = 600);

/// "signal 11 (Segmentation fault)".
std::string describe_signal(int sig);

}  // namespace ema
