#include "analysis/series_csv.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <vector>

#include "core/registry.hpp"
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

/// Splits one CSV record into its fields (RFC 4180: a quoted field may hold commas, doubled quotes
/// and line breaks; `more` reads the record's next line when a quote is still open).
template <class More>
std::vector<std::string> csv_record(std::string line, More&& more, const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0;; ++i) {
    if (i == line.size()) {
      if (!quoted) break;
      std::string next;
      if (!more(next)) throw std::invalid_argument(fmt::format("{}: a quoted field is not closed", where));
      line += "\n" + next;
    }
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        fields.back() += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        fields.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

/// `ema show --csv`'s long form, its header already read.
std::vector<labelled_series> parse_long(text_file& in, const std::vector<std::string>& header, const std::string& metric) {
  auto column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw std::invalid_argument(fmt::format("{}: the header has no column '{}'", in.name(), name));
    return static_cast<std::size_t>(it - header.begin());
  };
  const auto problem = column("problem"), variant = column("variant"), params = column("params"), n = column("n"), status = column("status"),
             metric_col = column("metric"), median = column("median");
  std::vector<labelled_series> out;
  std::set<std::string> metrics;
  std::string line;
  while (in.next(line)) {
    if (trim(line).empty()) continue;
    const auto where = fmt::format("{} line {}", in.name(), in.line_number());
    const auto f = csv_record(
        line, [&](std::string& next) { return in.next(next); }, where);
    if (f.size() != header.size()) throw std::invalid_argument(fmt::format("{}: {} fields, the header has {}", where, f.size(), header.size()));
    metrics.insert(f[metric_col]);
    if (f[metric_col] != metric || f[status] != "ok" || f[median].empty()) continue;
    const std::string name(current_variant_name(f[problem], f[variant]));  // a renamed variant as named now
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const labelled_series& s) { return s.problem == f[problem] && s.variant == name && s.params == f[params]; });
    if (it == out.end()) it = out.insert(out.end(), {f[problem], name, f[params], {}});
    it->data.add(number(f[n], "n", where), number(f[median], "median", where));
  }
  if (out.empty()) {
    metrics.erase("");
    std::string have;
    for (const auto& m : metrics) have += (have.empty() ? "" : ", ") + m;
    throw std::invalid_argument(
        fmt::format("{} has no row of metric '{}' that ran ok; its metrics: {}", in.name(), metric, have.empty() ? "none" : have));
  }
  return out;
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

std::vector<labelled_series> read_fit_csv(const std::string& path, const std::string& metric) {
  {
    text_file peek(path);
    std::string line;
    while (peek.next(line)) {
      const auto t = trim(line);
      if (t.empty() || t[0] == '#') continue;
      if (t.rfind("experiment,problem,variant", 0) != 0) break;
      const auto header = csv_record(
          t, [](std::string&) { return false; }, path);
      return parse_long(peek, header, metric);
    }
  }
  return {{"", std::filesystem::path(path).filename().string(), "{}", read_series_csv(path)}};
}

}  // namespace ema::fit
