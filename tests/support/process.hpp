// Runs a command for a test and captures its exit status, stdout and stderr.
#pragma once

#include <string>
#include <vector>

namespace ema::test {

struct process_result {
  int exit_code = -1;  ///< -1 when killed by a signal
  std::string out, err;
};

process_result run_process(const std::vector<std::string>& argv, const std::string& stdin_text = "", const std::string& cwd = "");

/// Starts a command in the background (stdout and stderr to /dev/null, or stderr to `err_file`),
/// in `cwd` when given; returns its pid.
int spawn_process(const std::vector<std::string>& argv, const std::string& cwd = "", const std::string& err_file = "");

}  // namespace ema::test
