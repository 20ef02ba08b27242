#include "report/grid.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace ema {
namespace {

std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xc0) != 0x80) ++w;  // count UTF-8 code points
  return w;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  auto w = display_width(s);
  std::string fill(width > w ? width - w : 0, ' ');
  return right ? fill + s : s + fill;
}

}  // namespace

std::string stored_text(const std::string& s, table_style style) { return style == table_style::markdown ? markdown_text(s) : s; }

std::string render(const grid& g, table_style style) {
  std::vector<std::size_t> width;
  for (const auto& c : g.columns) width.push_back(display_width(c.title));
  const bool md = style == table_style::markdown;
  for (const auto& r : g.rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], display_width(md ? markdown_text(r[i]) : r[i]));
  // GitHub's Markdown needs a hyphen in every delimiter cell (`| : |` is not one): three at least.
  if (md)
    for (auto& w : width) w = std::max<std::size_t>(w, 3);
  std::string out;
  if (style == table_style::markdown) {
    auto line = [&](const std::vector<std::string>& cells) {
      out += "|";
      for (std::size_t i = 0; i < cells.size(); ++i) {
        out += ' ';
        out += pad(markdown_text(cells[i]), width[i], g.columns[i].right);
        out += " |";
      }
      out += "\n";
    };
    std::vector<std::string> titles;
    for (const auto& c : g.columns) titles.push_back(c.title);
    line(titles);
    out += "|";
    for (std::size_t i = 0; i < width.size(); ++i) {
      out += ' ';
      out.append(g.columns[i].right ? width[i] - 1 : width[i], '-');
      if (g.columns[i].right) out += ':';
      out += " |";
    }
    out += "\n";
    for (const auto& r : g.rows) line(r);
    return out;
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i) l += (i ? "  " : "") + pad(cells[i], width[i], g.columns[i].right);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  std::vector<std::string> titles;
  for (const auto& c : g.columns) titles.push_back(c.title);
  line(titles);
  for (const auto& r : g.rows) line(r);
  return out;
}

}  // namespace ema
