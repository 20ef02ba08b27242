// A thin RAII layer over the SQLite C API: a connection and prepared statements whose errors
// throw database_error with SQLite's own message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace ema::sqlite {

class connection;

class statement {
 public:
  statement(connection& db, std::string_view sql);
  ~statement();
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  statement& bind(int index, std::int64_t v);
  statement& bind(int index, double v);
  statement& bind(int index, std::string_view v);
  statement& bind_null(int index);
  /// Steps once: true when a row is available, false when done.
  bool step();
  /// Steps to completion, expecting no rows.
  void run();
  void reset();

  std::int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;

 private:
  connection& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class connection {
 public:
  /// Opens with sqlite3_open_v2 flags; throws database_error naming `path` on failure.
  connection(const std::string& path, int flags);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  void exec(std::string_view sql);
  void busy_timeout(int ms);
  std::int64_t last_insert_id() const;
  /// SQLite's message for the last error, prefixed with the database path.
  [[noreturn]] void fail(int code, std::string_view what) const;
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// A transaction that rolls back unless committed. `immediate` takes the write lock at once.
class transaction {
 public:
  explicit transaction(connection& db, bool immediate = true);
  ~transaction();
  void commit();

 private:
  connection& db_;
  bool done_ = false;
};

}  // namespace ema::sqlite
