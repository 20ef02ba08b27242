// EMA's own mode (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2): a user's program and a generator of its
// inputs, measured over sizes. For each point the generator writes the input of (n, seed) into a
// cache folder, where it is kept for later runs within a disk cap (the least recently used inputs
// go first; inputs/input_cache.hpp: ema deletes nothing there it did not write); then the program
// runs under the plan's repetition policy, each run a child process of its own with the point's
// timeout, in the folder the experiment was started from, measuring wall, user and system time and
// peak resident memory; whatever the program starts ends with its run (runner/isolate.hpp). A program reports named phases by printing lines `ema-phase NAME SECONDS` on its
// standard output; they become metrics. A generator or program that fails, hangs or prints a
// malformed phase line ends the point with the reason, and the sweep goes on. There is no
// reference answer: a run is accepted when it exits with status 0.
#pragma once

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "runner/plan.hpp"
#include "store/database.hpp"

namespace ema {

/// Replaces {n}, {seed} and {input} in a command; the input's path is quoted for the shell context
/// its placeholder stands in (unquoted, or inside the command's own double or single quotes).
std::string expand_command(const std::string& command, std::uint64_t n, std::uint64_t seed, const std::string& input);

/// Throws usage_error for a placeholder other than {n}, {seed} and {input}, or for a command
/// lacking one of `required`.
void check_command(const std::string& option, const std::string& command, const std::vector<std::string>& required);

/// Checks, before anything is stored, that the program a command starts with can run from `cwd`:
/// a path (with a '/') names an executable file there, a bare name one on PATH, unless it is a
/// shell builtin or keyword. A first word with shell syntax in it (quotes, `$`, `=`, a
/// placeholder ...) is left to the shell. Throws usage_error naming the command and what is wrong.
void check_program(const std::string& option, const std::string& command, const std::string& cwd);

/// Parses `ema-phase NAME SECONDS` lines out of a program's standard output into `phases` (a name
/// reported twice adds up). Other lines are ignored. Returns the reason for the first malformed
/// phase line (counting phase lines only), empty when all are well formed.
std::string parse_phase_lines(const std::string& out, std::map<std::string, double>& phases);

/// Runs one point of an external program (see above) into `record`; sets `interrupted` when `stop`
/// was raised while it ran.
void run_external_point(const plan& p, const plan_point& pt, double timeout, const std::atomic<bool>* stop, point_record& record, bool& interrupted);

}  // namespace ema
