#include "core/axes.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <set>

#include "core/errors.hpp"
#include "core/sizes.hpp"

namespace ema {

namespace {

/// An integer axis's range as the sizes grammar reads it: `1..4` counts by one (1, 2, 3, 4), as
/// anyone means an integer range; `2^0..2^4`, whose ends are powers, doubles, as the sizes grammar
/// does; a range with its own step (`1..16*2`, `1..16+3`) is taken as written. A range counting by
/// one that would make more than max_counted values is refused with the ways to write fewer.
std::string axis_range(const std::string& item) {
  const auto dots = item.find("..");
  const std::string_view after = std::string_view(item).substr(dots + 2);
  if (after.find_first_of("*+") != std::string_view::npos) return item;
  const std::string_view before = std::string_view(item).substr(0, dots);
  if (before.find('^') != std::string_view::npos && after.find('^') != std::string_view::npos) return item;
  constexpr std::uint64_t max_counted = 100;
  const auto from = parse_size_number(before), to = parse_size_number(after);
  if (to < from) throw usage_error(fmt::format("range '{}' is empty: its start is larger than its end", item));
  if (to - from >= max_counted)
    throw usage_error(fmt::format("'{}' counts by one to {} values, more than {}; write '{}*2' to double or '{}+STEP' for a step", item,
                                  to - from + 1, max_counted, item, item));
  return item + "+1";
}

}  // namespace

std::vector<param_axis> group_assignments(const std::vector<std::string>& assignments, const std::function<bool(std::string_view)>& splittable,
                                          const std::function<bool(std::string_view)>& integer) {
  std::vector<param_axis> out;
  std::vector<std::set<std::string, std::less<>>> seen;  // each axis's values, for the repeated-value check in log time
  for (const auto& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) throw usage_error(fmt::format("parameter '{}' must be written key=value", a));
    const std::string key = a.substr(0, eq), value = a.substr(eq + 1);
    auto it = std::find_if(out.begin(), out.end(), [&](const param_axis& x) { return x.key == key; });
    if (it == out.end()) {
      it = out.insert(out.end(), {key, {}});
      seen.emplace_back();
    }
    auto& values_seen = seen[static_cast<std::size_t>(it - out.begin())];
    std::vector<std::string> items;
    if (splittable(key) && value.find(',') != std::string::npos) {
      std::size_t from = 0;
      for (;;) {
        const auto comma = value.find(',', from);
        items.push_back(value.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
        if (comma == std::string::npos) break;
        from = comma + 1;
      }
      for (const auto& item : items)
        if (item.empty()) throw usage_error(fmt::format("parameter '{}': an empty value in the list '{}'", key, value));
    } else {
      items.push_back(value);
    }
    for (const auto& item : items) {
      std::vector<std::string> values;
      if (integer(key) && item.find("..") != std::string::npos) {
        try {
          for (auto v : parse_sizes(axis_range(item))) values.push_back(std::to_string(v));
        } catch (const usage_error& e) {
          throw usage_error(fmt::format("parameter '{}': {}", key, e.what()));
        }
      } else {
        values.push_back(item);
      }
      for (auto& v : values) {
        if (!values_seen.insert(v).second) throw usage_error(fmt::format("parameter '{}' is given the value '{}' twice", key, v));
        it->values.push_back(std::move(v));
      }
    }
  }
  return out;
}

std::vector<std::vector<std::string>> combinations(const std::vector<param_axis>& axes, std::size_t limit) {
  double count = 1;
  for (const auto& a : axes) count *= static_cast<double>(std::max<std::size_t>(a.values.size(), 1));
  if (count > static_cast<double>(limit))
    throw usage_error(fmt::format("the parameter axes make {:.0f} combinations, more than {}; sweep fewer values at a time", count, limit));
  std::vector<std::vector<std::string>> out(1);
  for (const auto& a : axes) {
    if (a.values.empty()) continue;
    std::vector<std::vector<std::string>> next;
    for (const auto& partial : out)
      for (const auto& v : a.values) {
        auto c = partial;
        c.push_back(a.key + "=" + v);
        next.push_back(std::move(c));
      }
    out = std::move(next);
  }
  return out;
}

}  // namespace ema
