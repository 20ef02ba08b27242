// The text files users give ema (Matrix Market matrices, time series, CSV data to fit), read line
// by line within bounds: only a regular file is opened (a folder, a device such as /dev/zero, a
// pipe or a socket is named for what it is, before a byte is read), a line longer than the bound
// is refused rather than read without end, a UTF-8 byte-order mark (as spreadsheets write it) is
// skipped and a '\r' before the newline dropped. Every error names the file and the line.
#pragma once

#include <cstddef>
#include <fstream>
#include <istream>
#include <string>
#include <string_view>

namespace ema {

class text_file {
 public:
  static constexpr std::size_t default_max_line = std::size_t{1} << 20;

  /// Opens `path`; usage_error when it is not a regular file or cannot be read.
  explicit text_file(const std::string& path, std::size_t max_line = default_max_line);
  /// Reads `in` (text already in memory, for tests); `name` prefixes the errors.
  text_file(std::istream& in, std::string name, std::size_t max_line = default_max_line);
  text_file(const text_file&) = delete;
  text_file& operator=(const text_file&) = delete;

  /// The next line, without its end; false at the end of the file. usage_error for an overlong
  /// line or a read error.
  bool next(std::string& line);
  /// The number of the line last read (from 1).
  std::size_t line_number() const { return number_; }
  const std::string& name() const { return name_; }
  /// Throws usage_error("NAME:LINE: what"), `what` escaped for a terminal (control bytes, NUL and
  /// invalid UTF-8 as \xNN).
  [[noreturn]] void fail(const std::string& what) const;
  /// At most the first 40 bytes of `text`, "..." after a longer one: a field quoted in an error.
  static std::string excerpt(std::string_view text);

 private:
  bool read_line(std::string& line);
  std::ifstream file_;
  std::istream* in_;
  std::string name_;
  std::size_t max_line_;
  std::size_t number_ = 0;
};

}  // namespace ema
