// Text that came from outside ema (a program's output, a file's line, a path, stored rows) made
// safe for where it goes: JSON and the database (valid UTF-8), a terminal (no control sequences)
// and Markdown (no markup). ema stores what it is given; it escapes on the way out.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ema {

/// Whether `s` is well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool is_utf8(std::string_view s);

/// `s` with every byte that is not part of well-formed UTF-8 written as the four characters \xNN.
std::string valid_utf8(std::string_view s);

/// `s` for a terminal: valid_utf8, and every control character but newline and tab (C0, DEL, C1:
/// the bytes of escape sequences) written as \xNN or \u00NN, so stored text cannot move the
/// cursor, recolour or retitle the terminal.
std::string terminal_safe(std::string_view s);

/// terminal_safe, newlines and tabs also written as \n and \t: a stored or given value quoted
/// inside a one-line message.
std::string one_line(std::string_view s);

/// `s` as literal text inside a Markdown line or table cell (never at a line's start): terminal_safe,
/// newlines as spaces, and every character that could open markup there (emphasis, code, links,
/// HTML tags and entities, cell borders, strike-through) backslash-escaped: \ ` * _ [ ] < > | & ~ #.
std::string markdown_text(std::string_view s);

/// The text markdown_text escaped, its escapes removed (for ema's own Markdown read back as HTML).
std::string markdown_unescape(std::string_view s);

/// `s` as one field of a CSV line (RFC 4180): as it is, or in double quotes (a quote inside doubled)
/// where it holds a comma, a quote or a newline.
std::string csv_field(std::string_view s);

/// `arg` as one word of a POSIX shell command line: as it is when it holds only characters no shell
/// treats specially (letters, digits, `_-./=:,+@%`, not starting with `=`), else in single quotes (a quote inside written
/// '\''), so an echoed command can be pasted back and run.
std::string shell_word(std::string_view arg);

/// The deepest nesting of arrays and objects in JSON text (strings skipped), counted without
/// parsing; it stops counting past `limit`. A document nested deeper than ema ever writes or reads
/// (json_depth_limit) is refused before it is parsed, so that nothing recursive (printing,
/// copying, walking it) ever meets one.
int json_depth(std::string_view text, int limit);
inline constexpr int json_depth_limit = 100;

/// `text` parsed as JSON, nested at most json_depth_limit levels: the discarded value where it is
/// not JSON or is nested deeper (`too_deep`, where given, says which).
nlohmann::json parse_json(std::string_view text, bool* too_deep = nullptr);

/// `j` as JSON text, never throwing on a string that is not UTF-8 (such bytes become U+FFFD):
/// for output, and for JSON built from text that came from outside.
std::string json_text(const nlohmann::json& j, int indent = -1);

}  // namespace ema
