#include "store/sqlite.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include "core/errors.hpp"

namespace ema::sqlite {

connection::connection(const std::string& path, int flags) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw database_error(fmt::format("cannot open database {}: {}", path, msg));
  }
  sqlite3_extended_result_codes(db_, 1);
}

connection::~connection() { sqlite3_close(db_); }

void connection::fail(int code, std::string_view what) const {
  int primary = code & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) throw database_error(fmt::format("database {} is locked by another process", path_));
  if (primary == SQLITE_NOTADB) throw database_error(fmt::format("{} is not an ema database (it is not an SQLite file)", path_));
  if (code == SQLITE_READONLY_ROLLBACK)  // a reader meets a hot journal it may not roll back
    throw database_error(
        fmt::format("database {} holds an unfinished write (an ema process was killed while writing: a hot journal, "
                    "{}-journal); it is rolled back the next time a user who may write the file opens it (any ema "
                    "command run by its owner)",
                    path_, path_));
  if (primary == SQLITE_READONLY || primary == SQLITE_PERM || primary == SQLITE_CANTOPEN)
    throw database_error(fmt::format("database {} is not writable: {}", path_, sqlite3_errmsg(db_)));
  throw database_error(fmt::format("database {}: {} failed: {}", path_, what, sqlite3_errmsg(db_)));
}

void connection::exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);
  if (rc != SQLITE_OK) fail(rc, sql.substr(0, 60));
}

void connection::busy_timeout(int ms) { sqlite3_busy_timeout(db_, ms); }

std::int64_t connection::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

statement::statement(connection& db, std::string_view sql) : db_(db) {
  int rc = sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) db_.fail(rc, sql.substr(0, 60));
}

statement::~statement() { sqlite3_finalize(stmt_); }

statement& statement::bind(int i, std::int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}
statement& statement::bind(int i, double v) {
  sqlite3_bind_double(stmt_, i, v);
  return *this;
}
statement& statement::bind(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
statement& statement::bind_null(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

bool statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail(rc, sqlite3_sql(stmt_));
}

void statement::run() {
  while (step()) {
  }
  reset();
}

void statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t statement::integer(int c) const { return sqlite3_column_int64(stmt_, c); }
double statement::real(int c) const { return sqlite3_column_double(stmt_, c); }
std::string statement::text(int c) const {
  auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, c));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, c))) : std::string();
}

transaction::transaction(connection& db, bool immediate) : db_(db) { db_.exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN"); }

transaction::~transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace ema::sqlite
