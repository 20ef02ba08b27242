// Reads and changes a test's database directly, as a user with the sqlite3 shell would.
#pragma once

#include <string>

namespace ema::test {

/// The first column of the first row of `sql` on the database at `path`, read-only; -1 when the
/// database cannot be opened or the query fails (a database not created yet).
int query_int(const std::string& path, const std::string& sql);

/// The first column of the first row of `sql` as text, read-only; "" when there is none.
std::string query_text(const std::string& path, const std::string& sql);

/// Runs `sql` on the database at `path`; throws std::runtime_error with SQLite's message.
void exec_sql(const std::string& path, const std::string& sql);

}  // namespace ema::test
