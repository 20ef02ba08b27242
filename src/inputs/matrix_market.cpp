#include "inputs/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "inputs/text_file.hpp"

namespace ema {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<std::string> fields(const std::string& text) {
  std::istringstream s(text);
  std::vector<std::string> out;
  for (std::string f; s >> f;) out.push_back(f);
  return out;
}

std::size_t parse_index(const text_file& r, const std::string& f, const char* what) {
  std::size_t v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size()) r.fail(fmt::format("{} '{}' is not a non-negative integer", what, f));
  return v;
}

double parse_value(const text_file& r, const std::string& f) {
  double v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size()) r.fail(fmt::format("value '{}' is not a number", f));
  if (!std::isfinite(v)) r.fail(fmt::format("value '{}' is not finite", f));
  return v;
}

// The next line that is neither blank nor a comment; false at the end of the file.
bool next_data(text_file& r, std::string& line) {
  while (r.next(line)) {
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] != '%') return true;
  }
  return false;
}

// Reads the file, giving every entry to `entry(i, j, v)` (0-based; a symmetric file's entries
// below the diagonal given once, mirrored by the caller) after `shape(rows, cols, symmetric)`.
template <class Shape, class Entry>
void scan(text_file& r, Shape&& shape, Entry&& entry) {
  std::string banner;
  if (!r.next(banner)) throw usage_error(fmt::format("{}: the file is empty", r.name()));
  auto head = fields(banner);
  if (head.size() != 5 || head[0] != "%%MatrixMarket")
    r.fail("expected the banner '%%MatrixMarket matrix <coordinate|array> <real|integer> <general|symmetric>'");
  for (auto& h : head) h = lower(h);
  if (head[1] != "matrix") r.fail(fmt::format("object '{}' is not supported (only 'matrix')", head[1]));
  const bool coordinate = head[2] == "coordinate";
  if (!coordinate && head[2] != "array") r.fail(fmt::format("format '{}' is not 'coordinate' or 'array'", head[2]));
  if (head[3] != "real" && head[3] != "integer" && head[3] != "double") r.fail(fmt::format("field '{}' is not supported (real or integer)", head[3]));
  const bool symmetric = head[4] == "symmetric";
  if (!symmetric && head[4] != "general") r.fail(fmt::format("symmetry '{}' is not supported (general or symmetric)", head[4]));

  std::string line;
  if (!next_data(r, line)) r.fail("the size line is missing");
  auto size = fields(line);
  if (size.size() != (coordinate ? 3u : 2u))
    r.fail(coordinate ? "the size line must be 'rows columns entries'" : "the size line must be 'rows columns'");
  const std::size_t rows = parse_index(r, size[0], "rows"), cols = parse_index(r, size[1], "columns");
  if (symmetric && rows != cols) r.fail(fmt::format("a symmetric matrix must be square, not {} x {}", rows, cols));
  if (rows == 0 || cols == 0) r.fail("the matrix is empty");
  if (rows > 100000 || cols > 100000) r.fail(fmt::format("{} x {} is too large to hold dense", rows, cols));
  shape(rows, cols, symmetric);

  if (coordinate) {
    const std::size_t entries = parse_index(r, size[2], "entries");
    const std::size_t most = symmetric ? rows * (rows + 1) / 2 : rows * cols;
    if (entries > most) r.fail(fmt::format("{} entries is more than a {} x {} matrix holds", entries, rows, cols));
    for (std::size_t e = 0; e < entries; ++e) {
      if (!next_data(r, line)) r.fail(fmt::format("the file ends after {} of {} entries", e, entries));
      auto f = fields(line);
      if (f.size() != 3) r.fail(fmt::format("expected 3 fields (row column value), got {}", f.size()));
      const auto i = parse_index(r, f[0], "row"), j = parse_index(r, f[1], "column");
      if (i < 1 || i > rows) r.fail(fmt::format("row {} is outside 1..{}", i, rows));
      if (j < 1 || j > cols) r.fail(fmt::format("column {} is outside 1..{}", j, cols));
      if (symmetric && j > i) r.fail(fmt::format("entry ({}, {}) is above the diagonal of a symmetric matrix", i, j));
      entry(i - 1, j - 1, parse_value(r, f[2]));
    }
  } else {
    // Column-major; a symmetric array lists the lower triangle column by column.
    for (std::size_t j = 0; j < cols; ++j)
      for (std::size_t i = symmetric ? j : 0; i < rows; ++i) {
        if (!next_data(r, line)) r.fail(fmt::format("the file ends before entry ({}, {})", i + 1, j + 1));
        auto f = fields(line);
        if (f.size() != 1) r.fail(fmt::format("expected one value per line in the array format, got {}", f.size()));
        entry(i, j, parse_value(r, f[0]));
      }
  }
  if (next_data(r, line)) r.fail("unexpected data after the last entry");
}

dense_matrix read(text_file& r) {
  dense_matrix m;
  bool symmetric = false;
  scan(
      r,
      [&](std::size_t rows, std::size_t cols, bool sym) {
        m.rows = rows, m.cols = cols, symmetric = sym;
        m.values.assign(rows * cols, 0.0);
      },
      [&](std::size_t i, std::size_t j, double v) {
        // Coordinate duplicates add, as the format's readers do (an array entry appears once).
        m.values[i * m.cols + j] += v;
        if (symmetric && i != j) m.values[j * m.cols + i] += v;
      });
  return m;
}

matrix_market_info check(text_file& r) {
  // The largest entry as read_matrix_market would hold it: duplicates of a coordinate entry add.
  matrix_market_info info;
  std::unordered_map<std::size_t, double> sums;
  scan(
      r, [&](std::size_t rows, std::size_t cols, bool) { info.rows = rows, info.cols = cols; },
      [&](std::size_t i, std::size_t j, double v) { sums[i * info.cols + j] += v; });
  for (const auto& [at, sum] : sums) info.largest = std::max(info.largest, std::abs(sum));
  return info;
}

}  // namespace

dense_matrix read_matrix_market(std::istream& in, const std::string& name) {
  text_file r(in, name);
  return read(r);
}

dense_matrix read_matrix_market(const std::string& path) {
  text_file r(path);
  return read(r);
}

matrix_market_info check_matrix_market(std::istream& in, const std::string& name) {
  text_file r(in, name);
  return check(r);
}

matrix_market_info check_matrix_market(const std::string& path) {
  text_file r(path);
  return check(r);
}

namespace {

template <class T>
bool write_array(const std::string& path, std::size_t rows, std::size_t cols, const T* m) {
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return false;
  // Written whole under a temporary name, published only where nothing is there yet: a run stopped
  // midway, or a full disk, leaves no half file under the name (a resume writes it again).
  file_replacement f(path, std::nullopt, file_replacement::publish::never_replace);
  fmt::memory_buffer b;
  fmt::format_to(std::back_inserter(b), "%%MatrixMarket matrix array real general\n{} {}\n", rows, cols);
  for (std::size_t j = 0; j < cols; ++j)
    for (std::size_t i = 0; i < rows; ++i) {
      fmt::format_to(std::back_inserter(b), "{}\n", m[i * cols + j]);
      if (b.size() > (1u << 20)) {
        f.write(std::string_view(b.data(), b.size()));
        b.clear();
      }
    }
  f.write(std::string_view(b.data(), b.size()));
  try {
    f.commit();
  } catch (const file_exists_error&) {
    return false;  // another point wrote it meanwhile (every variant's grid is the same)
  }
  return true;
}

}  // namespace

bool write_matrix_market(const std::string& path, std::size_t rows, std::size_t cols, const float* row_major) {
  return write_array(path, rows, cols, row_major);
}

bool write_matrix_market(const std::string& path, std::size_t rows, std::size_t cols, const double* row_major) {
  return write_array(path, rows, cols, row_major);
}

}  // namespace ema
