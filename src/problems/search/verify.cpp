// Problem `search`'s verifier (Nobre et al., 001_9fea77a744af8951.txt, section 2: the lowest index holding the
// key, or -1). The reference is a plain for-loop, independent of every variant. Contract, checked
// on every run:
//   1. an index >= 0 is below n and holds the key;
//   2. no lower index holds the key;
//   3. -1 only when no index holds it.
#include <fmt/format.h>

#include "problems/search/search.hpp"

namespace ema::search {

output traits::reference(const input& in) {
  for (std::size_t i = 0; i < in.data.size(); ++i)
    if (in.data[i] == in.key) return static_cast<output>(i);
  return -1;
}

outcome traits::check(const input& in, const output& expected, const output& got) {
  outcome o;
  o.result_json = fmt::format("{{\"index\":{}}}", got);
  if (got == expected) {
    o.verified = true;
    return o;
  }
  if (got >= static_cast<output>(in.data.size()) || got < -1)
    o.reason = fmt::format("returned index {}, outside [-1, {})", got, in.data.size());
  else if (got >= 0 && in.data[static_cast<std::size_t>(got)] != in.key)
    o.reason = fmt::format("returned index {}, which does not hold the key {}", got, in.key);
  else if (got == -1)
    o.reason = fmt::format("returned -1, but index {} holds the key {}", expected, in.key);
  else
    o.reason = fmt::format("returned index {}, but the lower index {} holds the key too", got, expected);
  return o;
}

}  // namespace ema::search
