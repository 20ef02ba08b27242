#include "inputs/keys.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <fmt/format.h>
#include <type_traits>
#include <utility>

#include "core/errors.hpp"
#include "inputs/random.hpp"
#include "inputs/text_file.hpp"

namespace ema {
namespace {

constexpr std::uint64_t few_stream = 0x666577;     // "few"
constexpr std::uint64_t swap_stream = 0x73776170;  // "swap"
constexpr std::uint64_t zipf_stream = 0x7a697066;  // "zipf"
constexpr std::uint64_t few_values = 16;

/// A key from 64 random bits: the top `bits` bits of an integer, 24 bits of a float in [0, 1).
template <class T>
T from_draw(std::uint64_t r, unsigned bits) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(static_cast<double>(r >> 40) * 0x1.0p-24);
  else
    return static_cast<T>(bits >= 64 ? r : r >> (64 - bits));
}

/// The i-th of n evenly spread keys, non-decreasing in i.
template <class T>
T spread(std::uint64_t i, std::uint64_t n, unsigned bits) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<double>(i) / static_cast<double>(n));
  } else {
    const uint128 range = bits >= 64 ? (uint128{1} << 64) : (uint128{1} << bits);
    return static_cast<T>(static_cast<uint128>(i) * range / n);
  }
}

}  // namespace

key_distribution key_distribution_from(std::string_view name) {
  constexpr std::pair<std::string_view, key_distribution> names[] = {{"uniform", key_distribution::uniform},   {"sorted", key_distribution::sorted},
                                                                     {"reversed", key_distribution::reversed}, {"equal", key_distribution::equal},
                                                                     {"few", key_distribution::few},           {"organ", key_distribution::organ},
                                                                     {"nearly", key_distribution::nearly},     {"zipf", key_distribution::zipf}};
  for (const auto& [n, d] : names)
    if (n == name) return d;
  throw usage_error(fmt::format("unknown key distribution '{}'; valid: {}", name, key_distribution_choices));
}

template <class T>
void fill_keys(std::span<T> keys, key_distribution dist, std::uint64_t seed, unsigned bits) {
  bits = std::clamp(bits, 1u, static_cast<unsigned>(8 * sizeof(T)));
  const std::uint64_t n = keys.size();
  const auto count = static_cast<std::int64_t>(n);
  T* k = keys.data();
  const std::uint64_t m = std::min<std::uint64_t>(std::max<std::uint64_t>(n, 1), std::uint64_t{1} << 20);
  const double log_m1 = std::log(static_cast<double>(m) + 1);
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < count; ++s) {
    const auto i = static_cast<std::uint64_t>(s);
    switch (dist) {
      case key_distribution::uniform:
        k[i] = from_draw<T>(random_at(seed, i), bits);
        break;
      case key_distribution::sorted:
      case key_distribution::nearly:
        k[i] = spread<T>(i, n, bits);
        break;
      case key_distribution::reversed:
        k[i] = spread<T>(n - 1 - i, n, bits);
        break;
      case key_distribution::equal:
        k[i] = from_draw<T>(random_at(seed, 0), bits);
        break;
      case key_distribution::few:
        k[i] = from_draw<T>(random_at(seed ^ few_stream, random_below(seed, i, few_values)), bits);
        break;
      case key_distribution::organ: {
        const std::uint64_t rising = (n + 1) / 2;  // positions 0, 2, 4 ... going up, then back down the odd ones
        k[i] = spread<T>(i < rising ? 2 * i : 2 * (n - 1 - i) + 1, n, bits);
        break;
      }
      case key_distribution::zipf: {
        const double u = static_cast<double>(random_at(seed, i) >> 11) * 0x1.0p-53;
        const auto r = std::min<std::uint64_t>(m - 1, static_cast<std::uint64_t>(std::exp(u * log_m1)) - 1);
        k[i] = from_draw<T>(random_at(seed ^ zipf_stream, r), bits);
        break;
      }
    }
  }
  if (dist == key_distribution::nearly && n > 1)
    for (std::uint64_t s = 0; s < n / 100; ++s)
      std::swap(k[random_below(seed ^ swap_stream, 2 * s, n)], k[random_below(seed ^ swap_stream, 2 * s + 1, n)]);
}

template void fill_keys<std::uint32_t>(std::span<std::uint32_t>, key_distribution, std::uint64_t, unsigned);
template void fill_keys<std::uint64_t>(std::span<std::uint64_t>, key_distribution, std::uint64_t, unsigned);
template void fill_keys<float>(std::span<float>, key_distribution, std::uint64_t, unsigned);

template <class T>
std::vector<T> read_keys(const std::string& path) {
  text_file in(path);
  std::vector<T> keys;
  std::string line;
  while (in.next(line)) {
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const auto end = line.find_last_not_of(" \t") + 1;
    const char* first = line.data() + start;
    const char* last = line.data() + end;
    T v{};
    const auto [p, ec] = std::from_chars(first, last, v);
    const std::string text = text_file::excerpt(std::string_view(first, static_cast<std::size_t>(last - first)));
    if (ec == std::errc::result_out_of_range)
      in.fail(fmt::format("'{}' is beyond the range of {}", text, std::is_same_v<T, float> ? "f32" : sizeof(T) == 4 ? "u32" : "u64"));
    if (ec != std::errc() || p != last)
      in.fail(fmt::format("'{}' is not {}", text, std::is_same_v<T, float> ? "a number" : "a non-negative integer"));
    if constexpr (std::is_same_v<T, float>)
      if (!std::isfinite(v)) in.fail(fmt::format("'{}' is not finite", text));
    keys.push_back(v);
  }
  return keys;
}

template std::vector<std::uint32_t> read_keys<std::uint32_t>(const std::string&);
template std::vector<std::uint64_t> read_keys<std::uint64_t>(const std::string&);
template std::vector<float> read_keys<float>(const std::string&);

}  // namespace ema
