// Deterministic, counter-based random numbers for input generators: element i of an input is a
// pure function of (seed, i), so inputs can be generated in parallel, in any order, with any
// thread count, and are identical on every machine (and on the GPU: the draws are EMA_HD).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/host_device.hpp"

namespace ema {

/// SplitMix64 finaliser (Steele, Lea and Flood 2014): a bijective 64-bit mixer.
EMA_HD constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The i-th 64-bit value of the stream named by `seed`.
EMA_HD constexpr std::uint64_t random_at(std::uint64_t seed, std::uint64_t i) { return mix64(mix64(seed) ^ mix64(i + 0x632be59bd9b4e019ull)); }

__extension__ using uint128 = unsigned __int128;  // GCC/Clang's 128-bit integer, named once

/// A value uniform in [0, bound) from the i-th draw (Lemire's multiply-shift; bias below 2^-32
/// for bounds under 2^32).
EMA_HD constexpr std::uint64_t random_below(std::uint64_t seed, std::uint64_t i, std::uint64_t bound) {
  return static_cast<std::uint64_t>((static_cast<uint128>(random_at(seed, i)) * bound) >> 64);
}

/// FNV-1a of a string, to derive per-problem seeds; `h` continues the hash of the text before it
/// (hash_text(b, hash_text(a)) == hash_text(a + b)).
constexpr std::uint64_t hash_text(std::string_view s, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

/// A 64-bit hash of bytes, eight at a time (each word through mix64): checksums of cached inputs,
/// at several GB/s. Not for adversaries with time to search for a collision; for damage, edits
/// and swapped files.
inline std::uint64_t hash_bytes(const void* data, std::size_t size, std::uint64_t h = 0x243f6a8885a308d3ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t w;
    __builtin_memcpy(&w, p + i, 8);
    h = mix64(h ^ w);
  }
  std::uint64_t tail = size;  // the length too, so that trailing zero bytes count
  for (std::size_t k = 0; i + k < size; ++k) tail ^= static_cast<std::uint64_t>(p[i + k]) << (8 * k + 8);
  return mix64(h ^ tail);
}

}  // namespace ema
