#include "store/database.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/registry.hpp"
#include "core/text.hpp"
#include "store/schema.hpp"
#include "store/sqlite.hpp"

namespace ema {
namespace fs = std::filesystem;

namespace {

struct inspection {
  std::int32_t application_id = 0;
  int user_version = 0;
  int tables = 0;
};

// Looks at an existing file without writing to it.
inspection inspect(sqlite::connection& db) {
  inspection r;
  sqlite::statement a(db, "PRAGMA application_id");
  if (a.step()) r.application_id = static_cast<std::int32_t>(a.integer(0));
  sqlite::statement v(db, "PRAGMA user_version");
  if (v.step()) r.user_version = static_cast<int>(v.integer(0));
  sqlite::statement t(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  if (t.step()) r.tables = static_cast<int>(t.integer(0));
  return r;
}

void validate(const inspection& r, const std::string& path) {
  if (r.application_id != database::application_id && (r.application_id != 0 || r.tables > 0))
    throw database_error(
        fmt::format("{} is not an ema database (it is an SQLite file holding other data); "
                    "give another path with --db",
                    path));
  if (r.user_version > database::schema_version)
    throw database_error(
        fmt::format("{} was written by a newer ema (schema {}; this ema knows up to {})", path, r.user_version, database::schema_version));
}

void check_file(const std::string& path, bool must_exist) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (fs::is_directory(st)) throw database_error(fmt::format("{} is a directory, not a database file", path));
  // SQLite keeps a journal beside the file: a device (/dev/null) would get one in /dev.
  if (fs::exists(st) && !fs::is_regular_file(st)) throw database_error(fmt::format("{} is not a regular file; give a database file with --db", path));
  if (!fs::exists(st)) {
    if (must_exist) throw database_error(fmt::format("database {} does not exist", path));
    auto dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    if (!fs::is_directory(dir, ec)) throw database_error(fmt::format("cannot create database {}: directory {} does not exist", path, dir.string()));
    if (access(dir.c_str(), W_OK) != 0)
      throw database_error(fmt::format("cannot create database {}: {} ({})", path, std::strerror(errno), dir.string()));
    return;
  }
  if (access(path.c_str(), R_OK) != 0) throw database_error(fmt::format("cannot read database {}: {}", path, std::strerror(errno)));
  if (!must_exist && access(path.c_str(), W_OK) != 0)
    throw database_error(fmt::format("database {} is not writable: {}", path, std::strerror(errno)));
}

// What ema reads back is what it wrote; a row that is not (changed by hand, damaged) is a database
// error naming the row and the column, never a crash or a wrong report.
[[noreturn]] void damaged(const std::string& path, const std::string& where, const std::string& what) {
  throw database_error(fmt::format("database {}: {} {}; it was changed by hand or is damaged", path, where, what));
}

nlohmann::json json_object(const std::string& path, const std::string& where, const char* column, const std::string& text) {
  if (text.empty()) return nlohmann::json::object();
  bool deep = false;
  auto j = parse_json(text, &deep);
  if (deep) damaged(path, where, fmt::format("has a {} nested more than {} levels deep", column, json_depth_limit));
  if (j.is_discarded() || !j.is_object()) damaged(path, where, fmt::format("has a {} that is not a JSON object", column));
  return j;
}

experiment_record read_experiment(sqlite::statement& s, const std::string& path) {
  experiment_record e;
  e.id = s.integer(0);
  const auto where = fmt::format("experiment {}", e.id);
  e.created_at = s.text(1);
  e.finished_at = s.text(2);
  e.state = s.text(3);
  e.command_line = s.text(4);
  e.ema_version = s.text(5);
  e.git_commit = s.text(6);
  e.machine = json_object(path, where, "machine_json", s.text(7));
  e.ceilings = json_object(path, where, "ceilings_json", s.text(8));
  e.idle_power = json_object(path, where, "idle_json", s.text(9));
  e.plan = json_object(path, where, "plan_json", s.text(10));
  if (e.state != "running" && e.state != "finished" && e.state != "interrupted")
    damaged(path, where, fmt::format("has the state '{}'", valid_utf8(e.state)));
  return e;
}

constexpr const char* experiment_columns =
    "id, created_at, finished_at, state, command_line, ema_version, git_commit, machine_json, ceilings_json, "
    "idle_json, plan_json";

}  // namespace

std::string utc_now() {
  auto now = std::chrono::system_clock::now();
  auto t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03}Z", buf, ms);
}

// A write method's transaction: its own, or the open batch's.
struct database::write_scope {
  explicit write_scope(database& d) {
    if (!d.in_batch_) tx.emplace(*d.db_);
  }
  void commit() {
    if (tx) tx->commit();
  }
  std::optional<sqlite::transaction> tx;
};

database::batch::batch(database& db) : db_(db) {
  if (db_.in_batch_) throw std::logic_error("database::batch: a batch is already open");
  tx_ = std::make_unique<sqlite::transaction>(*db_.db_);
  db_.in_batch_ = true;
}

database::batch::~batch() { db_.in_batch_ = false; }  // tx_ rolls back unless committed

void database::batch::commit() {
  tx_->commit();
  db_.in_batch_ = false;
}

database::database(std::unique_ptr<sqlite::connection> c) : db_(std::move(c)) {}
database::database(database&&) noexcept = default;
database& database::operator=(database&&) noexcept = default;
database::~database() = default;

const std::string& database::path() const { return db_->path(); }

database database::open_read(const std::string& path) {
  check_file(path, true);
  // A process killed while writing leaves a hot journal that a read-only connection may not roll
  // back: where this user may write the file, a read-write connection rolls it back first, as
  // SQLite does on any read (it writes nothing else; an active writer's journal is not hot).
  std::error_code ec;
  const auto folder = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  if (fs::file_size(path + "-journal", ec) > 0 && !ec && access(path.c_str(), W_OK) == 0 && access(folder.c_str(), W_OK) == 0) {
    sqlite::connection rw(path, SQLITE_OPEN_READWRITE);
    rw.busy_timeout(5000);
    sqlite::statement s(rw, "SELECT count(*) FROM sqlite_master");
    s.step();
  }
  auto c = std::make_unique<sqlite::connection>(path, SQLITE_OPEN_READONLY);
  c->busy_timeout(5000);
  auto r = inspect(*c);
  validate(r, path);
  if (r.application_id != application_id) throw database_error(fmt::format("{} is an empty database, not an ema database", path));
  return database(std::move(c));
}

database database::open_write(const std::string& path) {
  check_file(path, false);
  if (fs::exists(path)) {
    // Inspect read-only first, so that a foreign file is never touched.
    sqlite::connection ro(path, SQLITE_OPEN_READONLY);
    ro.busy_timeout(2000);
    validate(inspect(ro), path);
  }
  auto c = std::make_unique<sqlite::connection>(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  c->busy_timeout(2000);
  c->exec("PRAGMA foreign_keys = ON");
  {
    sqlite::transaction tx(*c);
    auto r = inspect(*c);
    validate(r, path);
    for (const auto& m : schema::migrations()) {
      if (m.version <= r.user_version) continue;
      c->exec(m.sql);
      c->exec(fmt::format("PRAGMA user_version = {}", m.version));
    }
    c->exec(fmt::format("PRAGMA application_id = {}", application_id));
    sqlite::statement metric(*c, "INSERT OR REPLACE INTO metrics (name, unit, description) VALUES (?, ?, ?)");
    for (const auto& m : metric_catalog()) {
      metric.bind(1, std::string_view(m.name)).bind(2, std::string_view(m.unit)).bind(3, std::string_view(m.description));
      metric.run();
    }
    tx.commit();
  }
  // A sweep's commits wait longer for a concurrent reader or writer than the opening check did.
  c->busy_timeout(60000);
  return database(std::move(c));
}

std::int64_t database::create_experiment(const experiment_record& e) {
  write_scope tx(*this);
  sqlite::statement s(*db_,
                      "INSERT INTO experiments (created_at, state, command_line, ema_version, git_commit, machine_json, "
                      "ceilings_json, idle_json, plan_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, e.created_at.empty() ? utc_now() : e.created_at)
      .bind(2, e.state.empty() ? std::string("running") : e.state)
      .bind(3, e.command_line)
      .bind(4, e.ema_version)
      .bind(5, e.git_commit)
      .bind(6, json_text(e.machine))
      .bind(7, json_text(e.ceilings))
      .bind(8, json_text(e.idle_power))
      .bind(9, json_text(e.plan));
  s.run();
  auto id = db_->last_insert_id();
  tx.commit();
  return id;
}

void database::delete_experiment(std::int64_t id) {
  write_scope tx(*this);
  sqlite::statement s(*db_, "DELETE FROM experiments WHERE id = ?");  // points and samples go with it (ON DELETE CASCADE)
  s.bind(1, id);
  s.run();
  tx.commit();
}

void database::set_experiment_state(std::int64_t id, const std::string& state) {
  write_scope tx(*this);
  sqlite::statement s(*db_, "UPDATE experiments SET state = ?, finished_at = ? WHERE id = ?");
  s.bind(1, state);
  if (state == "running")
    s.bind_null(2);
  else
    s.bind(2, utc_now());
  s.bind(3, id);
  s.run();
  tx.commit();
}

void database::set_experiment_plan(std::int64_t id, const nlohmann::json& plan) {
  write_scope tx(*this);
  sqlite::statement s(*db_, "UPDATE experiments SET plan_json = ? WHERE id = ?");
  s.bind(1, json_text(plan)).bind(2, id);
  s.run();
  tx.commit();
}

std::optional<experiment_record> database::experiment(std::int64_t id) {
  sqlite::statement s(*db_, fmt::format("SELECT {} FROM experiments WHERE id = ?", experiment_columns));
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_experiment(s, db_->path());
}

std::optional<experiment_record> database::latest_experiment(bool unfinished) {
  sqlite::statement s(
      *db_, fmt::format("SELECT {} FROM experiments {} ORDER BY id DESC LIMIT 1", experiment_columns, unfinished ? "WHERE state != 'finished'" : ""));
  if (!s.step()) return std::nullopt;
  return read_experiment(s, db_->path());
}

std::vector<experiment_record> database::experiments() {
  std::vector<experiment_record> out;
  sqlite::statement s(*db_, fmt::format("SELECT {} FROM experiments ORDER BY id", experiment_columns));
  while (s.step()) out.push_back(read_experiment(s, db_->path()));
  return out;
}

std::int64_t database::record_point(const point_record& p) {
  write_scope tx(*this);
  sqlite::statement s(*db_,
                      "INSERT INTO points (experiment_id, ordinal, problem, variant, backend, n, params_json, seed, "
                      "status, reason, verified, result_json, notes_json, unavailable_json, started_at, finished_at, instance) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, p.experiment_id)
      .bind(2, std::int64_t{p.ordinal})
      .bind(3, p.problem)
      .bind(4, p.variant)
      .bind(5, p.backend)
      .bind(6, static_cast<std::int64_t>(p.n))
      .bind(7, p.params_json)
      .bind(8, static_cast<std::int64_t>(p.seed))
      .bind(9, to_string(p.status))
      .bind(10, valid_utf8(p.reason))
      .bind(11, std::int64_t{p.verified})
      .bind(12, p.result_json)
      .bind(13, p.notes_json)
      .bind(14, p.unavailable_json)
      .bind(15, p.started_at.empty() ? utc_now() : p.started_at)
      .bind(16, p.finished_at.empty() ? utc_now() : p.finished_at)
      .bind(17, std::int64_t{p.instance});
  s.run();
  auto id = db_->last_insert_id();
  sqlite::statement sample(*db_, "INSERT INTO samples (point_id, metric, rep, value) VALUES (?, ?, ?, ?)");
  for (const auto& [metric, values] : p.samples) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      sample.bind(1, id).bind(2, metric).bind(3, static_cast<std::int64_t>(i)).bind(4, values[i]);
      sample.run();
    }
  }
  tx.commit();
  return id;
}

std::vector<point_record> database::points(std::int64_t experiment_id) {
  std::vector<point_record> out;
  std::map<std::int64_t, std::size_t> index;
  sqlite::statement s(*db_,
                      "SELECT id, ordinal, problem, variant, backend, n, params_json, seed, status, reason, verified, "
                      "result_json, notes_json, unavailable_json, started_at, finished_at, instance FROM points "
                      "WHERE experiment_id = ? ORDER BY ordinal");
  s.bind(1, experiment_id);
  const auto& path = db_->path();
  while (s.step()) {
    point_record p;
    p.id = s.integer(0);
    const auto where = fmt::format("point {} of experiment {}", p.id, experiment_id);
    p.experiment_id = experiment_id;
    const auto ordinal = s.integer(1), n = s.integer(5), instance = s.integer(16);
    if (ordinal < 0 || ordinal > std::numeric_limits<int>::max()) damaged(path, where, fmt::format("has the ordinal {}", ordinal));
    if (n < 0) damaged(path, where, fmt::format("has the size {}", n));
    if (instance < 0 || instance > std::numeric_limits<int>::max()) damaged(path, where, fmt::format("has the instance {}", instance));
    p.ordinal = static_cast<int>(ordinal);
    p.problem = s.text(2);
    p.variant = current_variant_name(p.problem, s.text(3));  // a renamed variant as it is named now
    if (p.problem.empty() || p.variant.empty()) damaged(path, where, "has no problem or no variant name");
    p.backend = s.text(4);
    p.n = static_cast<std::uint64_t>(n);
    p.params_json = s.text(6);
    p.seed = static_cast<std::uint64_t>(s.integer(7));
    const auto status = status_from_string(s.text(8));
    if (!status) damaged(path, where, fmt::format("has the status '{}'", valid_utf8(s.text(8))));
    p.status = *status;
    p.reason = s.text(9);
    p.verified = s.integer(10) != 0;
    p.result_json = s.text(11);
    p.notes_json = s.text(12);
    p.unavailable_json = s.text(13);
    p.started_at = s.text(14);
    p.finished_at = s.text(15);
    p.instance = static_cast<int>(instance);
    json_object(path, where, "result_json", p.result_json);
    json_object(path, where, "notes_json", p.notes_json);
    const auto unavailable = json_object(path, where, "unavailable_json", p.unavailable_json);
    for (const auto& [metric, why] : unavailable.items())
      if (!why.is_string()) damaged(path, where, fmt::format("gives no reason why {} is unavailable", valid_utf8(metric)));
    const auto params = json_object(path, where, "params_json", p.params_json);
    for (const auto& [k, v] : params.items())
      if (!v.is_string()) damaged(path, where, fmt::format("has the parameter '{}' as {}, not text", valid_utf8(k), v.type_name()));
    if (p.params_json.empty()) p.params_json = "{}";
    index[p.id] = out.size();
    out.push_back(std::move(p));
  }
  sqlite::statement q(*db_,
                      "SELECT s.point_id, s.metric, s.value, typeof(s.value) FROM samples s JOIN points p ON p.id = s.point_id "
                      "WHERE p.experiment_id = ? ORDER BY s.point_id, s.metric, s.rep");
  q.bind(1, experiment_id);
  while (q.step()) {
    const double v = q.real(2);
    const auto type = q.text(3);
    if ((type != "real" && type != "integer") || !std::isfinite(v))
      damaged(path, fmt::format("point {}", q.integer(0)), fmt::format("has a sample of {} that is not a finite number", valid_utf8(q.text(1))));
    out[index.at(q.integer(0))].samples[q.text(1)].push_back(v);
  }
  return out;
}

std::set<int> database::recorded_ordinals(std::int64_t experiment_id) {
  std::set<int> out;
  sqlite::statement s(*db_, "SELECT ordinal FROM points WHERE experiment_id = ?");
  s.bind(1, experiment_id);
  while (s.step()) out.insert(static_cast<int>(s.integer(0)));
  return out;
}

void database::store_probe(const std::string& machine_key, const nlohmann::json& machine, const nlohmann::json& ceilings) {
  write_scope tx(*this);
  sqlite::statement s(*db_, "INSERT INTO probes (created_at, machine_key, machine_json, ceilings_json) VALUES (?, ?, ?, ?)");
  s.bind(1, utc_now()).bind(2, machine_key).bind(3, json_text(machine)).bind(4, json_text(ceilings));
  s.run();
  tx.commit();
}

std::optional<nlohmann::json> database::latest_probe(const std::string& machine_key) {
  sqlite::statement s(*db_, "SELECT created_at, machine_json, ceilings_json FROM probes WHERE machine_key = ? ORDER BY id DESC LIMIT 1");
  s.bind(1, machine_key);
  if (!s.step()) return std::nullopt;
  const auto where = fmt::format("the probe of machine {}", valid_utf8(machine_key));
  return nlohmann::json{{"created_at", s.text(0)},
                        {"machine", json_object(db_->path(), where, "machine_json", s.text(1))},
                        {"ceilings", json_object(db_->path(), where, "ceilings_json", s.text(2))}};
}

experiment_claim experiment_claim::take(const std::string& path, std::int64_t id) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw database_error(fmt::format("cannot open database {} to claim experiment {}: {}", path, id, std::strerror(errno)));
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = (off_t{1} << 62) + static_cast<off_t>(id);
  lock.l_len = 1;
  if (::fcntl(fd, F_OFD_SETLK, &lock) != 0) {
    const int why = errno;
    ::close(fd);
    if (why == EAGAIN || why == EACCES)
      throw database_error(
          fmt::format("experiment {} of {} is being run by another ema process right now; wait for it to "
                      "end (or stop it), then resume",
                      id, path));
    throw database_error(fmt::format("cannot claim experiment {} of {}: {}", id, path, std::strerror(why)));
  }
  return experiment_claim(fd);
}

experiment_claim& experiment_claim::operator=(experiment_claim&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

experiment_claim::~experiment_claim() {
  if (fd_ >= 0) ::close(fd_);  // closing the description drops its lock
}

}  // namespace ema
