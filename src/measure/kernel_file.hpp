// A kernel counter file (/proc/stat, /proc/loadavg, powercap's energy_uj): its first line, read
// within a bound. Where the counters are read can be moved (EMA_PROC_ROOT, EMA_POWERCAP_ROOT), so
// the file may be anything: a FIFO or a device (a link to /dev/zero) is refused rather than waited
// on or read forever.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace ema {

/// The first line of `path` (without its newline), read within `bound` bytes; nullopt where it
/// cannot be opened, is not a regular file (procfs and sysfs files are), is empty, or holds no
/// line ending within the bound.
std::optional<std::string> read_first_line(const std::filesystem::path& path, std::size_t bound);

}  // namespace ema
