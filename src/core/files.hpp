// Files ema writes besides its databases (exports, Slurm scripts, dumped grids), written whole and
// then published: the bytes go to a new file beside the target (mkstemp: a fresh name, created by
// this process, never a link), which is synced and renamed onto the target only when complete. A
// write that fails or is stopped midway leaves the target as it was (or absent) and no half file
// under its name; a link at the target is replaced, never written through.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace ema {

/// A file being written under a temporary name beside `path`; commit() publishes it. Destroyed
/// without commit(), the temporary file is removed. Errors are output_error (core/errors.hpp)
/// naming the path and the step that failed (create, write, sync, rename).
class file_replacement {
 public:
  enum class publish { replace, never_replace };
  /// `mode`: the new file's permissions (default: the replaced file's, else 0666 less the umask).
  /// With never_replace, commit() refuses (file_exists_error) where `path` exists by then.
  explicit file_replacement(std::string path, std::optional<mode_t> mode = std::nullopt, publish how = publish::replace);
  file_replacement(const file_replacement&) = delete;
  file_replacement& operator=(const file_replacement&) = delete;
  ~file_replacement();

  void write(std::string_view bytes);
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, temp_;
  int fd_ = -1;
  publish how_;
};

/// commit() of a never_replace file found the target already there.
struct file_exists_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Renames `from` to `to` only where `to` does not exist (renameat2's RENAME_NOREPLACE, or a hard
/// link where the file system has no such rename): false, with nothing changed, where it exists;
/// output_error naming `to` for any other failure.
bool rename_no_replace(const std::string& from, const std::string& to);

/// Whether two paths name one file, by any name (a link, a relative path, a hard link), whether or
/// not it exists yet.
bool same_file(const std::string& a, const std::string& b);

/// Whether `path` is the database `db` or one of its sidecar files (-journal, -wal, -shm), by any
/// name, whether or not it exists yet.
bool names_the_database(const std::string& db, const std::string& path);

/// `text` written to `path` as file_replacement does; a device or a pipe (/dev/stdout) is written in
/// place. "-" is standard output (on a terminal, terminal_safe: stored control characters shown,
/// never obeyed). output_error naming the path when it cannot be written.
void replace_file(const std::string& path, std::string_view text, std::optional<mode_t> mode = std::nullopt);

/// Throws usage_error unless `path` names a regular file that can be read; the message says what
/// it is instead ("a folder", "a character device", ...). `what` names the file's
/// role ("the Matrix Market file").
void require_regular_file(const std::string& path, const std::string& what);

}  // namespace ema
