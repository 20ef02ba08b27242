#include "analysis/series_csv.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

#include "inputs/text_file.hpp"

namespace ema::fit {
namespace {

std::string trim(std::string s) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), space).base(), s.end());
  return s;
}

double number(const std::string& text, const std::string& what, const std::string& where) {
  double v = 0;
  const auto t = trim(text);
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size())
    throw std::invalid_argument(fmt::format("{}: {} '{}' is not a number", where, what, t));
  if (!std::isfinite(v) || v <= 0) throw std::invalid_argument(fmt::format("{}: {} {} must be positive", where, what, t));
  return v;
}

series parse(text_file& in) {
  const auto& name = in.name();
  series s;
  std::string line;
  bool header = false;
  while (in.next(line)) {
    const auto t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto where = fmt::format("{} line {}", name, in.line_number());
    if (!header) {
      std::string h;
      for (char c : t)
        if (!std::isspace(static_cast<unsigned char>(c))) h += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (h != "n,value") throw std::invalid_argument(fmt::format("{}: the header must be 'n,value', found '{}'", where, t));
      header = true;
      continue;
    }
    const auto comma = t.find(',');
    if (comma == std::string::npos || t.find(',', comma + 1) != std::string::npos)
      throw std::invalid_argument(fmt::format("{}: expected two fields 'n,value', found '{}'", where, t));
    s.add(number(t.substr(0, comma), "n", where), number(t.substr(comma + 1), "value", where));
  }
  if (!header) throw std::invalid_argument(fmt::format("{} is empty: expected a header line 'n,value'", name));
  if (s.size() == 0) throw std::invalid_argument(fmt::format("{} has a header but no data", name));
  return s;
}

}  // namespace

series parse_series_csv(std::istream& in, const std::string& name) {
  text_file f(in, name);
  return parse(f);
}

series read_series_csv(const std::string& path) {
  text_file f(path);
  return parse(f);
}

}  // namespace ema::fit
