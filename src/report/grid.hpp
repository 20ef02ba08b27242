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

/// Text: columns two spaces apart, padded by display width (UTF-8 aware). Markdown: a pipe table.
std::string render(const grid& g, table_style style);

}  // namespace ema
