#include "measure/kernel_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace ema {

std::optional<std::string> read_first_line(const std::filesystem::path& path, std::size_t bound) {
  // Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::vector<char> buf(bound);
  std::size_t got = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    while (got < bound) {
      const auto r = ::read(fd, buf.data() + got, bound - got);
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
      if (std::string_view(buf.data(), got).find('\n') != std::string_view::npos) break;
    }
  }
  ::close(fd);
  if (got == 0) return std::nullopt;
  std::string s(buf.data(), got);
  const auto end = s.find('\n');
  if (end == std::string::npos && got == bound) return std::nullopt;  // no line within the bound
  return end == std::string::npos ? s : s.substr(0, end);
}

}  // namespace ema
