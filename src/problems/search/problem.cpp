// Problem `search` (001_9fea77a744af8951.txt, section 2): the input generator, the reference, the
// verifier and the work model.
//
// Input: n values drawn uniformly from [0, 2^31) (non-negative 32-bit integers), element i a pure
// function of (seed, i); a key drawn from the same seed and removed from the data (an element equal
// to it is replaced by key + 1 mod 2^31), then planted where `hit` says: none (absent: the source's
// worst case), first, middle (n/2), last, or random; `copies` > 1 plants further copies at random
// positions after the first, so the answer is still the planted position.
//
// Verifier contract, checked on every run: (1) an index >= 0 is below n and holds the key;
// (2) no lower index holds the key; (3) -1 only when no index holds it. The reference is a plain
// for-loop, independent of every variant.
#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/random.hpp"
#include "problems/search/search.hpp"

namespace ema::search {
namespace {

constexpr std::uint64_t key_stream = 0x6b6579;      // "key"
constexpr std::uint64_t place_stream = 0x706c6163;  // "plac"

constexpr param_spec params[] = {
    {"hit", param_kind::choice, "none", "where the key is planted (none: absent, the worst case)",
     "none|first|middle|last|random"},
    {"copies", param_kind::integer, "1", "occurrences of the key when planted (extra copies after the first)"},
};

constexpr std::uint64_t test_sizes[] = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, (1u << 20) + 7};
constexpr const char* test_params[] = {"hit=none",         "hit=first",          "hit=middle",        "hit=last",
                                       "hit=random",       "hit=first,copies=3", "hit=middle,copies=3", "hit=last,copies=3",
                                       "hit=random,copies=3"};

std::int64_t planted_position(std::uint64_t n, const std::string& hit, std::uint64_t seed) {
  if (n == 0 || hit == "none") return -1;
  if (hit == "first") return 0;
  if (hit == "middle") return static_cast<std::int64_t>(n / 2);
  if (hit == "last") return static_cast<std::int64_t>(n - 1);
  return static_cast<std::int64_t>(random_below(seed ^ place_stream, 0, n));
}

work_model work(std::uint64_t n, const param_set& p) {
  // Elements a scan must read: up to and including the answer, all of them when absent.
  const auto& hit = p.text("hit");
  double elements = static_cast<double>(n);
  if (hit == "first") elements = n ? 1 : 0;
  if (hit == "middle") elements = n ? static_cast<double>(n / 2 + 1) : 0;
  if (hit == "random") elements = (static_cast<double>(n) + 1) / 2;
  return {4 * elements, elements};
}

void validate(const param_set& p, std::span<const std::uint64_t> sizes) {
  const auto copies = integer_in(p, "search", "copies", 1, std::numeric_limits<std::int64_t>::max());
  if (p.text("hit") == "none") return;
  for (auto n : sizes)
    if (n > 0 && static_cast<std::uint64_t>(copies) > n)
      throw usage_error(fmt::format("search: copies = {} is more than the n = {} elements of the array", copies, n));
}

}  // namespace

input traits::generate(const point_request& r) {
  input in;
  const auto n = r.n;
  in.key = static_cast<std::uint32_t>(random_at(r.seed ^ key_stream, 0) >> 33);
  in.data = host_array<std::uint32_t>(n, r.memory);
  std::uint32_t* d = in.data.data();
  const std::uint32_t key = in.key, other = (key + 1) & 0x7fffffffu;
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    auto v = static_cast<std::uint32_t>(random_at(r.seed, static_cast<std::uint64_t>(i)) >> 33);
    d[i] = v == key ? other : v;
  }
  const auto pos = planted_position(n, r.params->text("hit"), r.seed);
  if (pos >= 0) {
    d[pos] = key;
    const auto copies = std::clamp<std::int64_t>(r.params->integer("copies"), 1, static_cast<std::int64_t>(n));
    const auto after = n - static_cast<std::uint64_t>(pos) - 1;
    for (std::int64_t c = 1; c < copies && after > 0; ++c)
      d[static_cast<std::uint64_t>(pos) + 1 + random_below(r.seed ^ place_stream, static_cast<std::uint64_t>(c), after)] = key;
  }
  return in;
}

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

EMA_PROBLEM(search, ema::search::kit::problem({
    .title = "parallel search for a key in an unsorted array: the lowest index, or -1",
    .size_meaning = "number of 32-bit elements in the array",
    .source = "001_9fea77a744af8951.txt (Algorithms 1 and 2, section 3.1)",
    .params = ema::search::params,
    .default_sizes = "2^10..2^26",
    .work = &ema::search::work,
    .validate = &ema::search::validate,
    .test_sizes = ema::search::test_sizes,
    .test_params = ema::search::test_params,
}));
