// Error types that cross module boundaries. Each maps to one documented exit code of `ema`
// (see cli/exit_codes.hpp) or to one status of a measurement point (see core/status.hpp).
#pragma once

#include <stdexcept>
#include <string>

namespace ema {

/// The user asked for something that does not exist or is malformed (exit code 2).
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The results database cannot be used: not writable, locked, not an ema database (exit code 3).
class database_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file the user asked ema to write (an export, a dumped grid, a script) could not be written:
/// a full disk, a file-size limit, a folder gone. The run's error, never a point's (exit code 5);
/// what was measured stays stored, and a point whose output failed is not recorded, so a resume
/// runs it again.
class output_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Host or device memory ran out while running a point; the point is recorded as `oom`.
class out_of_memory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ema
