#include "inputs/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"

namespace ema {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

struct line_reader {
  std::istream& in;
  const std::string& name;
  std::size_t number = 0;
  std::string text;

  /// The next line that is neither blank nor a comment; false at the end of the file.
  bool next() {
    while (std::getline(in, text)) {
      ++number;
      if (!text.empty() && text.back() == '\r') text.pop_back();
      const auto first = text.find_first_not_of(" \t");
      if (first != std::string::npos && text[first] != '%') return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const { throw usage_error(fmt::format("{}:{}: {}", name, number, what)); }
};

std::vector<std::string> fields(const std::string& text) {
  std::istringstream s(text);
  std::vector<std::string> out;
  for (std::string f; s >> f;) out.push_back(f);
  return out;
}

std::size_t parse_index(const line_reader& r, const std::string& f, const char* what) {
  std::size_t v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size()) r.fail(fmt::format("{} '{}' is not a non-negative integer", what, f));
  return v;
}

double parse_value(const line_reader& r, const std::string& f) {
  double v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size()) r.fail(fmt::format("value '{}' is not a number", f));
  if (!std::isfinite(v)) r.fail(fmt::format("value '{}' is not finite", f));
  return v;
}

}  // namespace

dense_matrix read_matrix_market(std::istream& in, const std::string& name) {
  line_reader r{in, name};
  std::string banner;
  if (!std::getline(in, banner)) throw usage_error(fmt::format("{}: the file is empty", name));
  r.number = 1;
  if (!banner.empty() && banner.back() == '\r') banner.pop_back();
  auto head = fields(banner);
  if (head.size() != 5 || head[0] != "%%MatrixMarket")
    r.fail("expected the banner '%%MatrixMarket matrix <coordinate|array> <real|integer> <general|symmetric>'");
  for (auto& h : head) h = lower(h);
  if (head[1] != "matrix") r.fail(fmt::format("object '{}' is not supported (only 'matrix')", head[1]));
  const bool coordinate = head[2] == "coordinate";
  if (!coordinate && head[2] != "array") r.fail(fmt::format("format '{}' is not 'coordinate' or 'array'", head[2]));
  if (head[3] != "real" && head[3] != "integer" && head[3] != "double")
    r.fail(fmt::format("field '{}' is not supported (real or integer)", head[3]));
  const bool symmetric = head[4] == "symmetric";
  if (!symmetric && head[4] != "general") r.fail(fmt::format("symmetry '{}' is not supported (general or symmetric)", head[4]));

  if (!r.next()) r.fail("the size line is missing");
  auto size = fields(r.text);
  if (size.size() != (coordinate ? 3u : 2u))
    r.fail(coordinate ? "the size line must be 'rows columns entries'" : "the size line must be 'rows columns'");
  dense_matrix m;
  m.rows = parse_index(r, size[0], "rows");
  m.cols = parse_index(r, size[1], "columns");
  if (symmetric && m.rows != m.cols) r.fail(fmt::format("a symmetric matrix must be square, not {} x {}", m.rows, m.cols));
  if (m.rows == 0 || m.cols == 0) r.fail("the matrix is empty");
  if (m.rows > 100000 || m.cols > 100000) r.fail(fmt::format("{} x {} is too large to hold dense", m.rows, m.cols));
  m.values.assign(m.rows * m.cols, 0.0);

  if (coordinate) {
    const std::size_t entries = parse_index(r, size[2], "entries");
    for (std::size_t e = 0; e < entries; ++e) {
      if (!r.next()) r.fail(fmt::format("the file ends after {} of {} entries", e, entries));
      auto f = fields(r.text);
      if (f.size() != 3) r.fail(fmt::format("expected 3 fields (row column value), got {}", f.size()));
      const auto i = parse_index(r, f[0], "row"), j = parse_index(r, f[1], "column");
      if (i < 1 || i > m.rows) r.fail(fmt::format("row {} is outside 1..{}", i, m.rows));
      if (j < 1 || j > m.cols) r.fail(fmt::format("column {} is outside 1..{}", j, m.cols));
      if (symmetric && j > i) r.fail(fmt::format("entry ({}, {}) is above the diagonal of a symmetric matrix", i, j));
      const double v = parse_value(r, f[2]);
      m.values[(i - 1) * m.cols + (j - 1)] += v;  // duplicates add, as the format's readers do
      if (symmetric && i != j) m.values[(j - 1) * m.cols + (i - 1)] += v;
    }
  } else {
    // Column-major; a symmetric array lists the lower triangle column by column.
    for (std::size_t j = 0; j < m.cols; ++j)
      for (std::size_t i = symmetric ? j : 0; i < m.rows; ++i) {
        if (!r.next()) r.fail(fmt::format("the file ends before entry ({}, {})", i + 1, j + 1));
        auto f = fields(r.text);
        if (f.size() != 1) r.fail(fmt::format("expected one value per line in the array format, got {}", f.size()));
        const double v = parse_value(r, f[0]);
        m.values[i * m.cols + j] = v;
        if (symmetric) m.values[j * m.cols + i] = v;
      }
  }
  if (r.next()) r.fail("unexpected data after the last entry");
  return m;
}

dense_matrix read_matrix_market(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw usage_error(fmt::format("{}: cannot open the Matrix Market file", path));
  return read_matrix_market(in, path);
}

}  // namespace ema
