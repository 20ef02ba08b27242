#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace ema {
namespace {

// The length of the well-formed UTF-8 sequence at s[i], or 0.
std::size_t sequence_at(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const auto cont = [&](std::size_t k) { return i + k < s.size() && (b(k) & 0xc0) == 0x80; };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xe0 && b(1) < 0xa0) return 0;   // overlong
    if (c == 0xed && b(1) >= 0xa0) return 0;  // surrogates
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xf0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xf4 && b(1) >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

std::string hex_byte(unsigned char c) { return fmt::format("\\x{:02x}", c); }

}  // namespace

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto k = sequence_at(s, i);
    if (!k) return false;
    i += k;
  }
  return true;
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto k = sequence_at(s, i);
    if (!k) {
      out += hex_byte(static_cast<unsigned char>(s[i++]));
      continue;
    }
    out.append(s.substr(i, k));
    i += k;
  }
  return out;
}

namespace {

std::string safe_text(std::string_view s, bool keep_lines) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto k = sequence_at(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    if (!k) {
      out += hex_byte(c);
      ++i;
    } else if (k == 1 && !keep_lines && (c == '\n' || c == '\t')) {
      out += c == '\n' ? "\\n" : "\\t";
      ++i;
    } else if (k == 1 && ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)) {
      out += hex_byte(c);
      ++i;
    } else if (k == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) {  // C1 controls
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(s[i + 1]));
      i += 2;
    } else {
      out.append(s.substr(i, k));
      i += k;
    }
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view s) { return safe_text(s, true); }

std::string one_line(std::string_view s) { return safe_text(s, false); }

namespace {
constexpr std::string_view markdown_special = "\\`*_[]<>|&~#";
}

std::string markdown_unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && markdown_special.find(s[i + 1]) != std::string_view::npos) ++i;
    out += s[i];
  }
  return out;
}

std::string markdown_text(std::string_view s) {
  const auto special = markdown_special;
  std::string out;
  for (char c : terminal_safe(s)) {
    if (c == '\n' || c == '\t') {
      out += ' ';
      continue;
    }
    if (special.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string json_text(const nlohmann::json& j, int indent) { return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace); }

std::string shell_word(std::string_view arg) {
  // `^` and a leading `=` are special to zsh (extended globs, =command), so they are quoted too.
  const bool plain = !arg.empty() && arg.front() != '=' && std::all_of(arg.begin(), arg.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("_-./=:,+@%").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain) return std::string(arg);
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'')
      out += "'\\''";  // close, an escaped quote, open again
    else
      out += c;
  }
  return out + "'";
}

int json_depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

nlohmann::json parse_json(std::string_view text, bool* too_deep) {
  const bool deep = json_depth(text, json_depth_limit) > json_depth_limit;
  if (too_deep) *too_deep = deep;
  if (deep) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, false);
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace ema
