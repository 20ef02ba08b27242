#include "support/db.hpp"

#include <sqlite3.h>
#include <stdexcept>

namespace ema::test {

namespace {

/// Runs `read` on the first row of `sql` on the database at `path`, read-only; false when the
/// database cannot be opened, the query fails or returns no row.
template <class Read>
bool first_row(const std::string& path, const std::string& sql, Read read) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);  // a handle is allocated even when opening fails
    return false;
  }
  sqlite3_busy_timeout(db, 2000);
  sqlite3_stmt* s = nullptr;
  const bool ok = sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW;
  if (ok) read(s);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return ok;
}

}  // namespace

int query_int(const std::string& path, const std::string& sql) {
  int n = -1;
  first_row(path, sql, [&](sqlite3_stmt* s) { n = sqlite3_column_int(s, 0); });
  return n;
}

std::string query_text(const std::string& path, const std::string& sql) {
  std::string text;
  first_row(path, sql, [&](sqlite3_stmt* s) {
    if (const auto* t = sqlite3_column_text(s, 0)) text = reinterpret_cast<const char*>(t);
  });
  return text;
}

void exec_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + path);
  }
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string why = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error(why);
}

}  // namespace ema::test
