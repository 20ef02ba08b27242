#include "runner/node.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "inputs/random.hpp"
#include "store/database.hpp"

namespace ema {
namespace {

void warn_once(const std::string& why) {
  static bool said = false;
  if (said) return;
  said = true;
  fmt::print(stderr, "ema: cannot coordinate with other ema processes on this node ({}): a probe may overlap their measurements\n", why);
}

int lock_file(int how) {
  const auto dir = node_dir();
  if (dir.empty()) return -1;
  const auto path = dir + "/node.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    warn_once(fmt::format("{}: {}", path, std::strerror(errno)));
    return -1;
  }
  while (flock(fd, how) != 0) {
    if (errno == EINTR) continue;  // a signal (Ctrl-C is handled by the sweep): wait on
    warn_once(fmt::format("flock {}: {}", path, std::strerror(errno)));
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string probe_path(const std::string& dir, const std::string& key) { return fmt::format("{}/probe-{:016x}.json", dir, hash_text(key)); }

}  // namespace

node_lock node_lock::shared() { return node_lock(lock_file(LOCK_SH)); }
node_lock node_lock::exclusive() { return node_lock(lock_file(LOCK_EX)); }

node_lock::~node_lock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the flock
}

std::string node_dir() {
  std::string dir;
  if (const char* d = std::getenv("EMA_NODE_DIR"); d && *d)
    dir = d;
  else
    dir = fmt::format("/tmp/ema-{}", static_cast<unsigned>(getuid()));
  // Made private (0700) where this process makes it; a folder found there is used only where it is
  // this user's own folder (not a link) that no one else can write to: the path is predictable.
  std::error_code ec;
  if (const auto parent = std::filesystem::path(dir).parent_path(); !parent.empty()) std::filesystem::create_directories(parent, ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    warn_once(fmt::format("{} cannot be made: {}", dir, std::strerror(errno)));
    return "";
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    warn_once(fmt::format("{} is not a folder", dir));
    return "";
  }
  if (st.st_uid != getuid() || (st.st_mode & 022) != 0) {  // another user's, or writable by others, in a shared /tmp
    warn_once(fmt::format("{} belongs to another user or others can write to it", dir));
    return "";
  }
  return dir;
}

std::optional<nlohmann::json> node_probe(const std::string& key, double max_age) {
  const auto dir = node_dir();
  if (dir.empty()) return std::nullopt;
  const auto path = probe_path(dir, key);
  std::error_code ec;
  const auto when = std::filesystem::last_write_time(path, ec);
  if (ec) return std::nullopt;
  const double age = std::chrono::duration<double>(std::filesystem::file_time_type::clock::now() - when).count();
  if (!(age >= 0 && age < max_age)) return std::nullopt;
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  auto j = parse_json(text.str());
  if (j.is_discarded() || !j.is_object() || j.value("key", "") != key || !j.contains("ceilings") || !j["ceilings"].is_object())
    return std::nullopt;  // damaged or another machine's: probe again
  return j;
}

void save_node_probe(const std::string& key, const nlohmann::json& machine, const nlohmann::json& ceilings) {
  const auto dir = node_dir();
  if (dir.empty()) return;
  try {
    replace_file(probe_path(dir, key),
                 json_text(nlohmann::json{{"key", key}, {"created_at", utc_now()}, {"machine", machine}, {"ceilings", ceilings}}), 0600);
  } catch (const output_error&) {  // a cache: the next process probes again
  }
}

}  // namespace ema
