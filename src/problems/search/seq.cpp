// search / seq — Algorithm 1 of Nobre et al., 001_9fea77a744af8951.txt ("Pesquisa"), as written: a sequential
// scan from the first element that stops as soon as the key is found. O(n) in the worst case.
#include "core/registry.hpp"
#include "problems/search/search.hpp"

namespace ema::search {
namespace {

output pesquisa(const input& in, run_context&) {
  const std::uint32_t* L = in.data.data();
  const std::uint64_t n = in.data.size();
  const std::uint32_t x = in.key;
  std::uint64_t j = 0;
  std::int64_t k = -1;
  while (j < n && k == -1) {
    if (L[j] == x)
      k = static_cast<std::int64_t>(j);
    else
      ++j;
  }
  return k;
}

}  // namespace
}  // namespace ema::search

EMA_VARIANT(search_seq, ema::search::kit::variant<&ema::search::pesquisa>({
                            .name = "seq",
                            .backend = ema::backend::seq,
                            .role = ema::variant_role::source,
                            .description = "linear scan with early exit, one thread",
                            .provenance = "Algorithm 1 of 001_9fea77a744af8951.txt",
                        }));
