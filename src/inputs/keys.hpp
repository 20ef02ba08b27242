// Key arrays: n keys of an integer or floating type drawn from a named distribution, generated in
// parallel from the point's seed, identical on every machine. The array `search` scans
// (Nobre et al., 001_9fea77a744af8951.txt section 2: n non-negative integers) comes from here, and the inputs of
// the sorting study (Nogueira, 004_96c7929830a11cf7.txt), whose quicksort with a middle pivot behaves very
// differently across them:
//   uniform   key i a pure function of (seed, i), uniform over the type's `bits` low bits
//             (floats: uniform in [0, 1));
//   sorted    non-decreasing, spread evenly over the same range; reversed: non-increasing;
//   equal     one value n times;       few: 16 distinct values, each key one of them at random;
//   organ     ascending to the middle, then descending (an organ pipe);
//   nearly    sorted, then n / 100 random pairs swapped;
//   zipf      ranks r in [0, m), m = min(n, 2^20), with P(r) falling as 1 / (r + 1) (the continuous
//             approximation: r = floor((m + 1)^u) - 1, u uniform), each rank a fixed random key.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ema {

enum class key_distribution { uniform, sorted, reversed, equal, few, organ, nearly, zipf };

/// The choices as a parameter declares them.
inline constexpr const char* key_distribution_choices = "uniform|sorted|reversed|equal|few|organ|nearly|zipf";

/// The distribution a parameter value names; usage_error listing the choices otherwise.
key_distribution key_distribution_from(std::string_view name);

/// Fills `keys` from `dist` and `seed`. Integers take values in [0, 2^bits) (bits at most the
/// type's width; `search` uses 31: non-negative 32-bit integers); floats ignore `bits`.
template <class T>
void fill_keys(std::span<T> keys, key_distribution dist, std::uint64_t seed, unsigned bits = 8 * sizeof(T));

/// Keys from a text file, one per line (blank lines and lines starting with '#' skipped): a
/// non-negative integer that fits the type, or for floats a finite number within their range.
/// usage_error "PATH:LINE: what is wrong" otherwise (inputs/text_file.hpp bounds the reading).
template <class T>
std::vector<T> read_keys(const std::string& path);

}  // namespace ema
