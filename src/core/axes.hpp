// Parameter axes (`--param k=1,2,4,8`, `--param k=1..16`, `--param k=1..16*2`), as nvbench's axes and hyperfine's
// `-L`/`-P` have them: a parameter given a list of values is an axis, and a plan is the cartesian
// product of its sizes and every axis, so one `ema run` sweeps a tuning parameter instead of one
// run per value.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ema {

struct param_axis {
  std::string key;
  std::vector<std::string> values;  ///< in the order given; one value: not an axis
};

/// Groups `key=value` assignments by key, in the order the keys first appear. A value is a list
/// when the key's values may be split (`splittable`: not for text and paths, whose values may hold
/// commas): items separated by commas, and for integer-valued keys (`integer`) an item may be a
/// range: `1..4` counts by one (1, 2, 3, 4; at most 100 values), `1..16*2` doubles, `1..16+3`
/// steps by 3, and `2^0..2^4` (both ends powers) doubles, as the sizes grammar (core/sizes.hpp)
/// reads it. A key
/// given more than once gathers the values of every assignment. Throws usage_error for an
/// assignment without '=', an empty item in a list, or a value given twice for one key.
std::vector<param_axis> group_assignments(const std::vector<std::string>& assignments, const std::function<bool(std::string_view)>& splittable,
                                          const std::function<bool(std::string_view)>& integer);

/// Every combination of one value per axis as `key=value` lists, the first axis varying slowest.
/// Throws usage_error when there would be more than `limit`.
std::vector<std::vector<std::string>> combinations(const std::vector<param_axis>& axes, std::size_t limit);

}  // namespace ema
