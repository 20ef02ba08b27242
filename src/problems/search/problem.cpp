// Problem `search` (Nobre et al., 001_9fea77a744af8951.txt, section 2): the parameters (parsed once into
// `settings`), the input generator, the work model and the registration; the verifier is in
// verify.cpp.
//
// Input: n values drawn uniformly from [0, 2^31) (non-negative 32-bit integers; inputs/keys.hpp,
// element i a pure function of (seed, i)); a key drawn from the same seed and removed from the
// data (an element equal to it is replaced by key + 1 mod 2^31), then planted where `hit` says:
// none (absent: the source's worst case), first, middle (n/2), last, or random; `copies` > 1 plants
// further copies at random positions after the first, so the answer is still the planted position.
#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <span>
#include <string_view>
#include <utility>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/keys.hpp"
#include "inputs/random.hpp"
#include "problems/search/search.hpp"

namespace ema::search {
namespace {

constexpr std::uint64_t key_stream = 0x6b6579;      // "key"
constexpr std::uint64_t place_stream = 0x706c6163;  // "plac"

constexpr param_spec params[] = {
    {"hit", param_kind::choice, "none", "where the key is planted (none: absent, the worst case)", "none|first|middle|last|random"},
    {"copies", param_kind::integer, "1", "occurrences of the key when planted (extra copies after the first)"},
};

constexpr std::uint64_t test_sizes[] = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, (1u << 20) + 7};
constexpr const char* test_params[] = {"hit=none",           "hit=first",           "hit=middle",        "hit=last",           "hit=random",
                                       "hit=first,copies=3", "hit=middle,copies=3", "hit=last,copies=3", "hit=random,copies=3"};

std::int64_t planted_position(std::uint64_t n, hit_mode hit, std::uint64_t seed) {
  if (n == 0) return -1;
  switch (hit) {
    case hit_mode::none:
      return -1;
    case hit_mode::first:
      return 0;
    case hit_mode::middle:
      return static_cast<std::int64_t>(n / 2);
    case hit_mode::last:
      return static_cast<std::int64_t>(n - 1);
    case hit_mode::random:
      break;
  }
  return static_cast<std::int64_t>(random_below(seed ^ place_stream, 0, n));
}

work_model work(std::uint64_t n, const param_set& p) {
  // Elements a scan must read: up to and including the answer, all of them when absent.
  double elements = static_cast<double>(n);
  switch (settings::of(p).hit) {
    case hit_mode::first:
      elements = n ? 1 : 0;
      break;
    case hit_mode::middle:
      elements = n ? static_cast<double>(n / 2 + 1) : 0;
      break;
    case hit_mode::random:
      elements = (static_cast<double>(n) + 1) / 2;
      break;
    case hit_mode::none:
    case hit_mode::last:
      break;
  }
  return {4 * elements, elements};
}

void validate(const param_set& p, std::span<const std::uint64_t> sizes) {
  const auto s = settings::of(p);
  if (s.hit == hit_mode::none) return;
  for (auto n : sizes)
    if (n > 0 && static_cast<std::uint64_t>(s.copies) > n)
      throw usage_error(fmt::format("search: copies = {} is more than the n = {} elements of the array", s.copies, n));
}

}  // namespace

settings settings::of(const param_set& p) {
  settings s;
  constexpr std::pair<std::string_view, hit_mode> hits[] = {
      {"none", hit_mode::none}, {"first", hit_mode::first}, {"middle", hit_mode::middle}, {"last", hit_mode::last}, {"random", hit_mode::random}};
  for (const auto& [name, mode] : hits)
    if (p.text("hit") == name) s.hit = mode;
  s.copies = integer_in(p, "search", "copies", 1, std::numeric_limits<std::int64_t>::max());
  return s;
}

input traits::generate(const point_request& r) {
  const auto s = settings::of(*r.params);
  input in;
  const auto n = r.n;
  in.key = static_cast<std::uint32_t>(random_at(r.seed ^ key_stream, 0) >> 33);
  in.data = host_array<std::uint32_t>(n, r.memory);
  std::uint32_t* d = in.data.data();
  fill_keys(std::span<std::uint32_t>(d, n), key_distribution::uniform, r.seed, 31);
  const std::uint32_t key = in.key, other = (key + 1) & 0x7fffffffu;
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i)
    if (d[i] == key) d[i] = other;
  const auto pos = planted_position(n, s.hit, r.seed);
  if (pos >= 0) {
    d[pos] = key;
    const auto copies = std::clamp<std::int64_t>(s.copies, 1, static_cast<std::int64_t>(n));
    const auto after = n - static_cast<std::uint64_t>(pos) - 1;
    for (std::int64_t c = 1; c < copies && after > 0; ++c)
      d[static_cast<std::uint64_t>(pos) + 1 + random_below(r.seed ^ place_stream, static_cast<std::uint64_t>(c), after)] = key;
  }
  return in;
}

}  // namespace ema::search

EMA_PROBLEM(search, ema::search::kit::problem({
                        .title = "parallel search for a key in an unsorted array: the lowest index, or -1",
                        .size_meaning = "number of 32-bit elements in the array",
                        .source = "001_9fea77a744af8951.txt (Algorithms 1 and 2, section 3.1)",
                        .params = ema::search::params,
                        .default_sizes = "2^10..2^28",
                        .work = &ema::search::work,
                        .op_unit = "elements",
                        .validate = &ema::search::validate,
                        .test_sizes = ema::search::test_sizes,
                        .test_params = ema::search::test_params,
                    }));
