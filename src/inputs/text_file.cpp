#include "inputs/text_file.hpp"

#include "core/files.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/text.hpp"

namespace ema {

text_file::text_file(const std::string& path, std::size_t max_line) : in_(&file_), name_(valid_utf8(path)), max_line_(max_line) {
  require_regular_file(path, "the file");
  file_.open(path, std::ios::binary);
  if (!file_) throw usage_error(fmt::format("{}: cannot open: {}", name_, std::strerror(errno)));
}

text_file::text_file(std::istream& in, std::string name, std::size_t max_line) : in_(&in), name_(valid_utf8(name)), max_line_(max_line) {}

bool text_file::next(std::string& line) {
  try {
    return read_line(line);
  } catch (const std::ios_base::failure& e) {  // the file system failed a read (EIO): the file's fault, not ema's
    throw usage_error(fmt::format("{}: cannot be read after line {}: {}", name_, number_, e.code().message()));
  }
}

bool text_file::read_line(std::string& line) {
  line.clear();
  auto* buf = in_->rdbuf();
  if (!buf || !*in_) return false;
  bool any = false;
  for (;;) {
    const auto c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in_->setstate(std::ios::eofbit);
      if (!any) return false;
      break;
    }
    any = true;
    if (c == '\n') break;
    if (line.size() >= max_line_) {
      ++number_;
      fail(fmt::format("the line is longer than {} bytes (is this a text file?)", max_line_));
    }
    line += static_cast<char>(c);
  }
  ++number_;
  if (number_ == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a byte-order mark
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

// The message escaped for a terminal: a NUL or control byte quoted from a binary file would end
// the C string an exception carries, or reach the terminal raw.
void text_file::fail(const std::string& what) const { throw usage_error(fmt::format("{}:{}: {}", name_, number_, terminal_safe(what))); }

std::string text_file::excerpt(std::string_view text) {
  constexpr std::size_t most = 40;
  return text.size() <= most ? std::string(text) : std::string(text.substr(0, most)) + "...";
}

}  // namespace ema
