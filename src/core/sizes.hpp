// The size list of a sweep: `--sizes 2^10..2^28`, `1000,2000,5000`, `2^10..2^20*4`,
// `2000..5000+1000`. Malformed text is rejected with a message saying what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ema {

/// The most sizes one list may expand to.
constexpr std::size_t max_sizes = 100000;

/// Parses a size specification into a sorted list of distinct sizes.
///   item    := number | number '..' number [ '*' factor | '+' step ]
///   number  := digits | digits 'e' digits | base '^' exponent   (at most 2^48)
/// A range without a step doubles; a factor must be finite and greater than 1. Throws usage_error
/// naming the offending item, or a list that expands to more than max_sizes sizes.
std::vector<std::uint64_t> parse_sizes(std::string_view text);

/// Parses one number of the grammar above ("2^20", "1e6", "4096").
std::uint64_t parse_size_number(std::string_view text);

}  // namespace ema
