// The results database (SQLite): experiments (what ran, where, with which plan), points (one
// problem, variant, size, parameter set and seed; its status and verdict) and every sample of
// every metric. A versioned schema with migrations; each point is committed as it finishes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace ema {

namespace sqlite {
class connection;
class transaction;
}  // namespace sqlite

struct experiment_record {
  std::int64_t id = 0;
  std::string created_at, finished_at;
  std::string state;  ///< running, finished, interrupted
  std::string command_line, ema_version, git_commit;
  nlohmann::json machine = nlohmann::json::object();
  nlohmann::json ceilings = nlohmann::json::object();
  nlohmann::json idle_power = nlohmann::json::object();
  nlohmann::json plan = nlohmann::json::object();
};

struct point_record {
  std::int64_t id = 0;
  std::int64_t experiment_id = 0;
  int ordinal = 0;  ///< the point's place in the experiment's plan
  std::string problem, variant, backend;
  std::uint64_t n = 0;
  std::string params_json = "{}";
  std::uint64_t seed = 0;
  int instance = 0;  ///< which input instance of (problem, n, parameters) (`--instances`)
  point_status status = point_status::ok;
  std::string reason;
  bool verified = false;
  std::string result_json = "{}";
  std::string notes_json = "{}";        ///< launch geometry, threads, energy window
  std::string unavailable_json = "{}";  ///< metric -> why it could not be measured
  std::string started_at, finished_at;
  std::map<std::string, std::vector<double>> samples;  ///< metric -> values in repetition order
};

class database {
 public:
  /// The newest schema version this ema writes.
  static constexpr int schema_version = 2;
  /// PRAGMA application_id of an ema database ("ema!").
  static constexpr std::int32_t application_id = 0x656d6121;

  /// Opens for reading; the file must exist and be an ema database.
  static database open_read(const std::string& path);
  /// Opens for writing, creating the file if needed and migrating an older schema. A file that is
  /// not an ema database, not writable or locked gets a database_error and is left untouched.
  static database open_write(const std::string& path);

  database(database&&) noexcept;
  database& operator=(database&&) noexcept;
  ~database();

  const std::string& path() const;

  /// Groups the writes made while it is open into one transaction, committed by commit(): all of
  /// them or, where a write fails or the process stops first, none (SQLite's journal rolls an
  /// interrupted one back when the file is next opened). Destroyed uncommitted, it rolls back.
  class batch {
   public:
    explicit batch(database& db);
    batch(const batch&) = delete;
    batch& operator=(const batch&) = delete;
    ~batch();
    void commit();

   private:
    database& db_;
    std::unique_ptr<sqlite::transaction> tx_;
  };

  std::int64_t create_experiment(const experiment_record& e);
  /// Removes an experiment with its points and samples.
  void delete_experiment(std::int64_t id);
  void set_experiment_state(std::int64_t id, const std::string& state);
  /// Replaces the stored plan (a calibrated sweep adds points as it decides them).
  void set_experiment_plan(std::int64_t id, const nlohmann::json& plan);
  std::optional<experiment_record> experiment(std::int64_t id);
  /// The newest experiment; with `unfinished`, the newest that is not finished.
  std::optional<experiment_record> latest_experiment(bool unfinished = false);
  std::vector<experiment_record> experiments();

  /// Stores a point and all its samples in one transaction.
  std::int64_t record_point(const point_record& p);
  std::vector<point_record> points(std::int64_t experiment_id);
  std::set<int> recorded_ordinals(std::int64_t experiment_id);

  void store_probe(const std::string& machine_key, const nlohmann::json& machine, const nlohmann::json& ceilings);
  /// The newest probe stored for this machine: {"created_at", "machine", "ceilings"}.
  std::optional<nlohmann::json> latest_probe(const std::string& machine_key);

 private:
  explicit database(std::unique_ptr<sqlite::connection> c);
  struct write_scope;
  std::unique_ptr<sqlite::connection> db_;
  bool in_batch_ = false;
};

/// This process's claim on one experiment while it adds points to it, so that two processes never
/// run one experiment at once (two `--resume` of it, a resume racing a tie-breaker run). It is an
/// open-file-description lock (F_OFD_SETLK) on one byte of the database file, far past the bytes
/// SQLite locks; the kernel drops it when the process ends, however it ends (kill -9 included),
/// so a claim is never left stale.
class experiment_claim {
 public:
  /// Claims experiment `id` of the database at `path`; database_error when another process holds it.
  static experiment_claim take(const std::string& path, std::int64_t id);
  experiment_claim(experiment_claim&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  experiment_claim& operator=(experiment_claim&& o) noexcept;
  experiment_claim(const experiment_claim&) = delete;
  experiment_claim& operator=(const experiment_claim&) = delete;
  ~experiment_claim();

 private:
  explicit experiment_claim(int fd) : fd_(fd) {}
  int fd_ = -1;
};

/// The current time as ISO 8601 UTC with milliseconds.
std::string utc_now();

}  // namespace ema
