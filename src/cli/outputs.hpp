// The files a command writes besides the database (--json, --csv, --md, --html), checked before
// anything runs or is stored, so that a sweep never ends in an unwritable path and an output never
// lands on the database itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/plan.hpp"

namespace ema::cli {

/// An output a command will write: its option and path ("-" is standard output).
struct output_path {
  std::string option;
  std::string path;
};

/// The outputs that were given, with their options.
std::vector<output_path> given_outputs(std::initializer_list<std::pair<const char*, const std::optional<std::string>*>> options);

/// Refuses (usage_error naming the option) an output that is the database `db` or one of its
/// sidecar files (-journal, -wal, -shm), by any name (a link, a relative path); the same file named
/// by two options; a folder; or a file that cannot be written: checked without creating, opening
/// or changing anything.
void check_outputs(const std::string& db, const std::vector<output_path>& outputs);
/// The same against every database a command touches (its --db, a --costs-from database).
void check_outputs(const std::vector<std::string>& databases, const std::vector<output_path>& outputs);

/// The files the plan's output parameters name (stencil's dump=, at each size of a fixed plan; at a
/// calibrated plan's, where the name holds no {n}), each as "--param NAME=".
std::vector<output_path> parameter_outputs(const plan& p);

}  // namespace ema::cli
