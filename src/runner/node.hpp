// What the ema processes on one node share (docs/cluster.md): shards of a Slurm array placed on
// one node must not probe the machine at once, nor probe while another measures, and need probe it
// only once. A lock file and a probe cache in the node's own /tmp (never a network file system,
// where flock is unreliable), per user:
// - node_lock::shared() is held by a sweep while it runs a point, node_lock::exclusive() while a
//   probe runs: a probe waits for the points in flight on the node and holds the next ones back;
// - node_probe()/save_node_probe(): a probe of this machine (its key: host, CPU, GPUs) younger than
//   a day is reused by every later process on the node instead of probing again.
// EMA_NODE_DIR overrides the folder (tests). Where the folder cannot be made, the lock is not
// taken and ema says so once on stderr: the processes then run as if alone.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ema {

class node_lock {
 public:
  static node_lock shared();
  static node_lock exclusive();
  node_lock(node_lock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  node_lock& operator=(node_lock&&) = delete;
  node_lock(const node_lock&) = delete;
  node_lock& operator=(const node_lock&) = delete;
  ~node_lock();
  bool held() const { return fd_ >= 0; }

 private:
  explicit node_lock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

/// The folder of this user's node-wide files ("" when it cannot be made).
std::string node_dir();

/// A probe of the machine with `key` stored on this node less than `max_age` seconds ago:
/// {"created_at", "machine", "ceilings"}.
std::optional<nlohmann::json> node_probe(const std::string& key, double max_age = 86400);
void save_node_probe(const std::string& key, const nlohmann::json& machine, const nlohmann::json& ceilings);

}  // namespace ema
