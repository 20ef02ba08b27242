// The schema of the results database and its migrations: migration k takes a database from
// user_version k-1 to k. A new schema version appends a migration; none is ever edited.
#pragma once

#include <span>
#include <string_view>

namespace ema::schema {

struct migration {
  int version;
  std::string_view sql;
};

std::span<const migration> migrations();

}  // namespace ema::schema
