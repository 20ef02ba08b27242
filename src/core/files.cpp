#include "core/files.hpp"

#include "core/errors.hpp"
#include "core/text.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ema {
namespace {

[[noreturn]] void fail(const std::string& path, const char* step, int why) {
  throw output_error(fmt::format("cannot write {}: {} ({})", path, std::strerror(why), step));
}

bool write_all(int fd, std::string_view bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const auto k = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = ENOSPC;
      return false;
    }
    at += static_cast<std::size_t>(k);
  }
  return true;
}

}  // namespace

file_replacement::file_replacement(std::string path, std::optional<mode_t> mode, publish how) : path_(std::move(path)), how_(how) {
  temp_ = path_ + ".ema-XXXXXX";
  fd_ = ::mkstemp(temp_.data());
  if (fd_ < 0) fail(path_, "create", errno);
  ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
  if (!mode) {
    struct stat st {};
    if (::lstat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      mode = st.st_mode & 07777;
    } else {
      const mode_t mask = ::umask(0);
      ::umask(mask);
      mode = 0666 & ~mask;
    }
  }
  ::fchmod(fd_, *mode);
}

file_replacement::~file_replacement() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void file_replacement::write(std::string_view bytes) {
  if (!write_all(fd_, bytes)) fail(path_, "write", errno);
}

void file_replacement::commit() {
  if (::fsync(fd_) != 0) fail(path_, "sync", errno);
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) fail(path_, "close", errno);
  if (how_ == publish::replace) {
    if (::rename(temp_.c_str(), path_.c_str()) != 0) fail(path_, "rename", errno);
  } else if (!rename_no_replace(temp_, path_)) {
    throw file_exists_error(fmt::format("{} exists: ema writes a new file and never replaces one", path_));
  }
  temp_.clear();
}

bool rename_no_replace(const std::string& from, const std::string& to) {
  int r = ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
  if (r != 0 && (errno == EINVAL || errno == ENOSYS)) {  // no such rename here: a hard link fails with EEXIST too
    r = ::link(from.c_str(), to.c_str());
    if (r == 0) ::unlink(from.c_str());
  }
  if (r == 0) return true;
  if (errno == EEXIST) return false;
  fail(to, "rename", errno);
}

namespace {

// One name for a file whatever path reaches it: the canonical form of its folder and its name.
std::filesystem::path identity(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? std::filesystem::absolute(path, ec).lexically_normal() : p;
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec) && std::filesystem::equivalent(a, b, ec)) return true;
  return identity(a) == identity(b);
}

bool names_the_database(const std::string& db, const std::string& path) {
  for (const char* sidecar : {"", "-journal", "-wal", "-shm"})
    if (same_file(path, db + sidecar)) return true;
  return false;
}

void replace_file(const std::string& path, std::string_view text, std::optional<mode_t> mode) {
  if (path == "-") {  // on a terminal, stored control characters are shown, never obeyed
    const bool terminal = ::isatty(1) != 0;
    const std::string safe = terminal ? terminal_safe(text) : std::string();
    const std::string_view out = terminal ? std::string_view(safe) : text;
    std::fwrite(out.data(), 1, out.size(), stdout);
    return;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {  // a device or a pipe: in place
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail(path, "open", errno);
    const bool ok = write_all(fd, text);
    const int why = errno;
    ::close(fd);
    if (!ok) fail(path, "write", why);
    return;
  }
  file_replacement f(path, mode);
  f.write(text);
  f.commit();
}

void require_regular_file(const std::string& path, const std::string& what) {
  const auto shown = valid_utf8(path);
  if (path.empty()) throw usage_error(fmt::format("{}: no path given", what));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw usage_error(fmt::format("{} {} cannot be read: {}", what, shown, std::strerror(errno)));
  const char* kind = S_ISREG(st.st_mode)    ? nullptr
                     : S_ISDIR(st.st_mode)  ? "a folder"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISFIFO(st.st_mode) ? "a pipe (ema reads its inputs again in each point's process)"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  if (kind) throw usage_error(fmt::format("{} {} is {}, not a regular file", what, shown, kind));
  if (::access(path.c_str(), R_OK) != 0) throw usage_error(fmt::format("{} {} cannot be read: {}", what, shown, std::strerror(errno)));
}

}  // namespace ema
