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

/// The order a fixed plan runs its sizes in (`--order`).
enum class size_order {
  /// Neighbouring sizes far apart in time: the bit-reversed order of their places (1st, middle,
  /// 1st quarter, 3rd quarter, ...). A stretch of time when the machine is busy (a build, another
  /// job, a thermal episode) then slows sizes scattered along the range, which the fit sees as
  /// noise between sizes, instead of a stretch of consecutive sizes, which bends the curve like a
  /// change of class (issue 29, item 5).
  interleaved,
  ascending,  ///< smallest first, as given
};

/// `sizes` (ascending) in the order `order` runs them.
std::vector<std::uint64_t> run_order(const std::vector<std::uint64_t>& sizes, size_order order);

/// "interleaved" or "ascending"; usage_error naming the option for anything else.
size_order parse_size_order(std::string_view text);

}  // namespace ema
