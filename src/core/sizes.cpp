#include "core/sizes.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <string>

#include "core/errors.hpp"

namespace ema {
namespace {

constexpr std::uint64_t max_size = std::uint64_t{1} << 48;  // far past any machine's memory

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::uint64_t digits(std::string_view s, std::string_view whole) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (!all_digits(s) || ec != std::errc{} || p != s.data() + s.size())
    throw usage_error(fmt::format("size '{}' is not a number (write e.g. 4096, 2^20 or 1e6)", whole));
  return v;
}

std::uint64_t checked_pow(std::uint64_t base, std::uint64_t exp, std::string_view whole) {
  if (base <= 1) return exp == 0 ? 1 : base;  // 0^k, 1^k: no loop over a huge k
  std::uint64_t r = 1;
  for (std::uint64_t i = 0; i < exp; ++i) {
    if (base != 0 && r > max_size / base) throw usage_error(fmt::format("size '{}' is too large (the limit is 2^48)", whole));
    r *= base;
  }
  return r;
}

}  // namespace

std::uint64_t parse_size_number(std::string_view text) {
  auto s = trim(text);
  if (s.empty()) throw usage_error("empty size in the size list");
  if (s.front() == '-') throw usage_error(fmt::format("size '{}' is negative", s));
  std::uint64_t v = 0;
  if (auto caret = s.find('^'); caret != std::string_view::npos) {
    v = checked_pow(digits(s.substr(0, caret), s), digits(s.substr(caret + 1), s), s);
  } else if (auto e = s.find_first_of("eE"); e != std::string_view::npos) {
    v = checked_pow(10, digits(s.substr(e + 1), s), s);
    auto mantissa = digits(s.substr(0, e), s);
    if (mantissa != 0 && v > max_size / mantissa) throw usage_error(fmt::format("size '{}' is too large (the limit is 2^48)", s));
    v *= mantissa;
  } else {
    v = digits(s, s);
  }
  if (v > max_size) throw usage_error(fmt::format("size '{}' is too large (the limit is 2^48)", s));
  return v;
}

std::vector<std::uint64_t> parse_sizes(std::string_view text) {
  std::vector<std::uint64_t> out;
  if (trim(text).empty()) throw usage_error("the size list is empty");
  std::string_view rest = text;
  while (true) {
    auto comma = rest.find(',');
    auto item = trim(rest.substr(0, comma));
    if (item.empty()) throw usage_error(fmt::format("the size list '{}' has an empty item", text));
    if (auto dots = item.find(".."); dots != std::string_view::npos) {
      auto lo_text = item.substr(0, dots);
      auto hi_text = item.substr(dots + 2);
      char step_kind = '*';
      std::string_view step_text;
      if (auto op = hi_text.find_first_of("*+"); op != std::string_view::npos) {
        step_kind = hi_text[op];
        step_text = trim(hi_text.substr(op + 1));
        hi_text = hi_text.substr(0, op);
        if (step_text.empty()) throw usage_error(fmt::format("range '{}' has an empty step after '{}'", item, step_kind));
      }
      auto lo = parse_size_number(lo_text), hi = parse_size_number(hi_text);
      if (lo > hi) throw usage_error(fmt::format("range '{}' is empty: its start is larger than its end", item));
      auto room = [&](std::uint64_t more) {
        if (more > max_sizes - std::min<std::size_t>(out.size(), max_sizes))
          throw usage_error(fmt::format("range '{}' expands to more than {} sizes; take a larger step", item, max_sizes));
      };
      if (step_kind == '+') {
        auto step = parse_size_number(step_text);
        if (step == 0) throw usage_error(fmt::format("range '{}' has a step of 0", item));
        room((hi - lo) / step + 1);
        for (auto v = lo; v <= hi; v += step) out.push_back(v);
      } else {
        double factor = 2.0;
        if (!step_text.empty()) {
          std::string f(step_text);
          char* end = nullptr;
          factor = std::strtod(f.c_str(), &end);
          if (end != f.c_str() + f.size() || !std::isfinite(factor) || !(factor > 1.0))
            throw usage_error(fmt::format("range '{}' needs a finite factor greater than 1 after '*'", item));
        }
        if (lo == 0) throw usage_error(fmt::format("range '{}' grows geometrically and cannot start at 0", item));
        // The steps are counted before any is taken (a factor near 1 makes very many), and sizes
        // that round alike are kept once.
        room(static_cast<std::uint64_t>(std::ceil(std::log(static_cast<double>(hi) / static_cast<double>(lo)) / std::log(factor))) + 1);
        std::uint64_t last = 0;
        for (double v = static_cast<double>(lo); v < static_cast<double>(hi) + 0.5; v *= factor) {
          const auto r = static_cast<std::uint64_t>(std::llround(v));
          if (r == last) continue;
          out.push_back(last = r);
        }
      }
    } else {
      out.push_back(parse_size_number(item));
    }
    if (out.size() > max_sizes) throw usage_error(fmt::format("the size list '{}' has more than {} sizes", text, max_sizes));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::uint64_t> run_order(const std::vector<std::uint64_t>& sizes, size_order order) {
  if (order == size_order::ascending || sizes.size() < 3) return sizes;
  // Bit reversal over the next power of two, places past the end skipped: every place once.
  unsigned bits = 0;
  while ((std::size_t{1} << bits) < sizes.size()) ++bits;
  std::vector<std::uint64_t> out;
  out.reserve(sizes.size());
  for (std::size_t i = 0; i < (std::size_t{1} << bits); ++i) {
    std::size_t r = 0;
    for (unsigned b = 0; b < bits; ++b)
      if (i & (std::size_t{1} << b)) r |= std::size_t{1} << (bits - 1 - b);
    if (r < sizes.size()) out.push_back(sizes[r]);
  }
  return out;
}

size_order parse_size_order(std::string_view text) {
  if (text == "interleaved") return size_order::interleaved;
  if (text == "ascending") return size_order::ascending;
  throw usage_error(fmt::format("--order must be interleaved or ascending, got '{}'", text));
}

}  // namespace ema
