// A grid of cells rendered as an aligned text table or as Markdown: what every table of ema's
// reports is drawn with.
#pragma once

#include <string>
#include <vector>

namespace ema {

enum class table_style { text, markdown };

struct column {
  std::string title;
  bool right = false;  ///< right-aligned (numbers)
};

struct grid {
  std::vector<column> columns;
  std::vector<std::vector<std::string>> rows;
};

/// Text: columns two spaces apart, padded by display width (UTF-8 aware). Markdown: a pipe table,
/// every cell literal text (core/text.hpp markdown_text).
std::string render(const grid& g, table_style style);

/// Text from the database (a reason, a command line, a path, a name) for a line of a report
/// outside its tables: literal Markdown text in Markdown, as it is in text (whose printer makes it
/// safe for the terminal: cli/commands.hpp print_text).
std::string stored_text(const std::string& s, table_style style);

}  // namespace ema
