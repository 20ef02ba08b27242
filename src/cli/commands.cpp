#include "cli/commands.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <limits.h>
#include <stdexcept>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/text.hpp"

namespace ema::cli {

std::string self_executable() {
  char buf[PATH_MAX];
  auto k = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (k <= 0) throw std::runtime_error("cannot find the ema executable (/proc/self/exe)");
  return std::string(buf, static_cast<std::size_t>(k));
}

experiment_view chosen_experiment(database& db, const std::optional<std::int64_t>& id) {
  auto e = id ? db.experiment(*id) : db.latest_experiment();
  if (!e) {
    if (id) throw usage_error(fmt::format("{} has no experiment {}", db.path(), *id));
    throw usage_error(fmt::format("{} holds no experiment yet", db.path()));
  }
  return load_experiment(db, e->id);
}

void print_text(const std::string& text) {
  const auto safe = terminal_safe(text);
  std::fwrite(safe.data(), 1, safe.size(), stdout);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto c = s.find(',', start);
    auto item = s.substr(start, c == std::string::npos ? std::string::npos : c - start);
    if (!item.empty()) out.push_back(item);
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return out;
}

}  // namespace ema::cli
