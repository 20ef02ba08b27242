#include "report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace ema {
namespace {

constexpr const char* palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr double plot_width = 472, height = 380, left = 78, top = 34, bottom = 46;
constexpr double legend_char = 6.4;  // px per character of an 11 px legend entry

// Palette index -1 is the neutral grey of reference markers.
const char* color_of(int i) { return i < 0 ? "#777777" : palette[static_cast<std::size_t>(i) % std::size(palette)]; }

bool drawable(double x, double y) { return x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y); }

// Characters, not bytes: a legend's "Θ" and "²" take one place each.
std::size_t utf8_length(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

struct axis {
  double lo = 1, hi = 10;  // log10 of the domain
  double a = 0, b = 1;     // pixel range
  bool binary = false;

  double operator()(double v) const { return a + (std::log10(v) - lo) / (hi - lo) * (b - a); }

  // Decade ticks, with 2 and 5 between them when the domain spans few decades.
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (binary) {  // powers of 2, every k-th so that there are at most 8
      const int j0 = static_cast<int>(std::ceil(lo / std::log10(2.0))), j1 = static_cast<int>(std::floor(hi / std::log10(2.0)));
      const int step = std::max(1, (j1 - j0) / 7 + 1);
      for (int j = j0; j <= j1; ++j)
        if (j % step == 0) t.push_back(std::exp2(j));
      if (t.size() >= 2) return t;
      t.clear();  // less than an octave or two: decimal ticks
    }
    // Decades; 1, 2, 5 within few of them; every digit within less than one; and where even that
    // leaves fewer than two, three ticks evenly spaced in log, at two significant digits.
    for (const auto& mantissas : {std::vector<double>{1}, std::vector<double>{1, 2, 5}, std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}}) {
      if (mantissas.size() == 1 && hi - lo < 2.5) continue;
      if (mantissas.size() == 3 && hi - lo < 0.7) continue;
      t.clear();
      for (int d = static_cast<int>(std::floor(lo)); d <= static_cast<int>(std::ceil(hi)); ++d)
        for (double m : mantissas) {
          const double v = m * std::pow(10.0, d);
          if (std::log10(v) >= lo - 1e-9 && std::log10(v) <= hi + 1e-9) t.push_back(v);
        }
      if (t.size() >= 2) return t;
    }
    t.clear();
    for (double f : {0.15, 0.5, 0.85}) {
      const double v = std::pow(10.0, lo + f * (hi - lo));
      const double scale = std::pow(10.0, std::floor(std::log10(v)) - 1);
      t.push_back(std::round(v / scale) * scale);
    }
    return t;
  }
};

axis make_axis(std::vector<double> values, double a, double b) {
  axis ax;
  ax.a = a;
  ax.b = b;
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0) || !std::isfinite(v); }), values.end());
  if (values.empty()) return ax;
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  double lo = std::log10(*mn), hi = std::log10(*mx);
  if (hi - lo < 1e-9) lo -= 0.3, hi += 0.3;
  const double pad = 0.04 * (hi - lo);
  ax.lo = lo - pad;
  ax.hi = hi + pad;
  return ax;
}

std::string path_of(const std::vector<std::pair<double, double>>& pts, const axis& x, const axis& y) {
  std::string d;
  for (const auto& [px, py] : pts) {
    if (!drawable(px, py)) continue;
    d += fmt::format("{}{:.1f},{:.1f}", d.empty() ? "M" : " L", x(px), y(py));
  }
  return d;
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_count(double n) {
  static const char* suffix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::abs(n) >= 1000 && i < 5) n /= 1000, ++i;
  return fmt::format("{:g}{}", std::round(n * 100) / 100, suffix[i]);
}

bool chart::empty() const {
  for (const auto& s : series) {
    for (const auto& p : s.points)
      if (drawable(p.x, p.y)) return false;
    for (const auto& [x, y] : s.curve)
      if (drawable(x, y)) return false;
  }
  return true;
}

namespace {

/// Where a chart is drawn: its axes and its width with the legend's column.
struct frame {
  axis x, y;
  double width = 0, right = 0;
  std::function<std::string(double)> fx, fy;
};

/// The axes, sized to every drawable point, curve, band, marker and level, and the width the
/// legend's longest entry needs (no entry is clipped).
frame frame_of(const chart& c) {
  std::vector<double> xs, ys;
  for (const auto& s : c.series) {
    for (const auto& p : s.points) {
      if (!drawable(p.x, p.y)) continue;
      xs.push_back(p.x);
      ys.push_back(p.y);
      if (p.lo > 0) ys.push_back(p.lo);
      if (p.hi > 0) ys.push_back(p.hi);
    }
    for (const auto* line : {&s.curve, &s.band_lo, &s.band_hi})
      for (const auto& [x, y] : *line)
        if (drawable(x, y)) xs.push_back(x), ys.push_back(y);
  }
  for (const auto& m : c.markers)
    if (m.x > 0) xs.push_back(m.x);
  for (const auto& l : c.levels)
    if (l.x > 0) ys.push_back(l.x);
  // The legend's column is as wide as its longest entry, so that no entry is clipped.
  std::size_t longest = 20;
  for (const auto& s : c.series) longest = std::max(longest, utf8_length(s.name));
  const double right = 40 + legend_char * static_cast<double>(longest), width = left + plot_width + right;
  frame f{make_axis(xs, left, width - right), make_axis(ys, height - bottom, top), width, right, {}, {}};
  f.y.binary = c.binary_y;
  f.fx = c.format_x ? c.format_x : format_count;
  f.fy = c.format_y ? c.format_y : [](double v) { return fmt::format("{:.3g}", v); };
  return f;
}

/// The opening tag, the title, the plot's box, the ticks with their grid lines, and the axes' labels.
std::string axes_svg(const chart& c, const frame& f, const std::string& id) {
  const auto& x = f.x;
  const auto& y = f.y;
  const double width = f.width, right = f.right;
  std::string o = fmt::format(
      "<svg class=\"chart\" id=\"{}\" viewBox=\"0 0 {} {}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
      "aria-label=\"{}\">\n",
      html_escape(id), width, height, html_escape(c.title));
  o += fmt::format("<text class=\"title\" x=\"{}\" y=\"20\">{}<title>{}</title></text>\n", left, html_escape(c.title),
                   html_escape(c.subtitle.empty() ? c.title : c.subtitle));
  o += fmt::format("<rect class=\"plot\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", left, top, width - left - right, height - top - bottom);
  for (double t : x.ticks()) {
    o += fmt::format("<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\"/>", x(t), top, height - bottom);
    o += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x(t), height - bottom + 16,
                     html_escape(f.fx(t)));
  }
  for (double t : y.ticks()) {
    o += fmt::format("<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>", left, width - right, y(t));
    o += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6, y(t) + 4, html_escape(f.fy(t)));
  }
  o += fmt::format("<text class=\"label\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (left + width - right) / 2, height - 8,
                   html_escape(c.x_label));
  o += fmt::format("<text class=\"label\" transform=\"translate(14,{:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                   (top + height - bottom) / 2, html_escape(c.y_label));

  return o;
}

/// Each series: its band, its curve, its points with whiskers, in a group the legend can hide.
std::string series_svg(const chart& c, const frame& f, const std::string& id) {
  const auto& x = f.x;
  const auto& y = f.y;
  std::string o;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    const char* colour = color_of(s.color);
    o += fmt::format("<g class=\"series\" data-series=\"{}-s{}\">\n", html_escape(id), i);
    if (!s.band_lo.empty() && s.band_lo.size() == s.band_hi.size()) {
      std::string d = path_of(s.band_lo, x, y);
      std::vector<std::pair<double, double>> back(s.band_hi.rbegin(), s.band_hi.rend());
      const auto upper = path_of(back, x, y);
      if (!d.empty() && !upper.empty()) {
        d += " L" + upper.substr(1) + " Z";
        o += fmt::format("<path class=\"band\" d=\"{}\" fill=\"{}\"/>\n", d, colour);
      }
    }
    if (const auto d = path_of(s.curve, x, y); !d.empty()) {
      o += fmt::format("<path class=\"curve{}\" d=\"{}\" stroke=\"{}\"/>\n", s.dashed ? " dashed" : "", d, colour);
      // The label rides just above the curve's first segment, along it (a roof's bandwidth slope).
      std::vector<std::pair<double, double>> px;
      for (const auto& [cx, cy] : s.curve)
        if (drawable(cx, cy)) px.emplace_back(x(cx), y(cy));
      if (!s.curve_label.empty() && px.size() >= 2) {
        const double angle = std::atan2(px[1].second - px[0].second, px[1].first - px[0].first) * 180 / std::acos(-1.0);
        o += fmt::format(
            "<text class=\"marker-label\" x=\"{0:.1f}\" y=\"{1:.1f}\" fill=\"{2}\" transform=\"rotate({3:.1f} {0:.1f} {1:.1f})\" "
            "dy=\"-6\">{4}</text>\n",
            px[0].first + 6, px[0].second, colour, angle, html_escape(s.curve_label));
      }
    }
    for (const auto& p : s.points) {
      if (!drawable(p.x, p.y)) continue;
      if (p.lo > 0 && p.hi > 0 && (p.lo < p.y || p.hi > p.y))
        o += fmt::format("<line class=\"whisker\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>", x(p.x), y(p.lo),
                         y(p.hi), colour);
      o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.2\" fill=\"{}\"><title>{}</title></circle>\n", x(p.x), y(p.y), colour,
                       html_escape(p.tip));
    }
    o += "</g>\n";
  }
  return o;
}

/// Vertical markers, each label on its own row on the side of its line with the room, and
/// horizontal levels.
std::string markers_svg(const chart& c, const frame& f) {
  const auto& x = f.x;
  const auto& y = f.y;
  const double width = f.width, right = f.right;
  std::string o;
  // Vertical c.markers, each label on its own row, on the side of its line with the room.
  int row = 0;
  for (const auto& m : c.markers) {
    if (!(m.x > 0)) continue;
    const double label_y = top + 12 + 12 * row++;
    const bool right_half = x(m.x) > left + plot_width / 2;
    o += fmt::format("<line class=\"marker\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\"/>", x(m.x), top, height - bottom,
                     color_of(m.color));
    o += fmt::format("<text class=\"marker-label\" x=\"{:.1f}\" y=\"{}\" fill=\"{}\" text-anchor=\"{}\">{}</text>\n",
                     right_half ? x(m.x) - 3 : x(m.x) + 3, label_y, color_of(m.color), right_half ? "end" : "start", html_escape(m.label));
  }
  for (const auto& l : c.levels) {
    if (!(l.x > 0)) continue;
    o += fmt::format("<line class=\"marker\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>", left, width - right, y(l.x),
                     color_of(l.color));
    o += fmt::format("<text class=\"marker-label\" x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\" text-anchor=\"end\">{}</text>\n", width - right - 4,
                     y(l.x) - 4, color_of(l.color), html_escape(l.label));
  }
  return o;
}

/// The legend: a click shows or hides the series.
std::string legend_svg(const chart& c, const frame& f, const std::string& id) {
  const double width = f.width, right = f.right;
  std::string o;
  // Legend: a click shows or hides the c.series.
  double ly = top + 8;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    o += fmt::format(
        "<g class=\"legend\" data-target=\"{}-s{}\" tabindex=\"0\"><rect x=\"{}\" y=\"{:.1f}\" width=\"12\" "
        "height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{:.1f}\">{}</text></g>\n",
        html_escape(id), i, width - right + 12, ly, color_of(s.color), width - right + 30, ly + 10, html_escape(s.name));
    ly += 18;
  }
  return o;
}

}  // namespace

std::string chart::svg(const std::string& id) const {
  const auto f = frame_of(*this);
  return axes_svg(*this, f, id) + series_svg(*this, f, id) + markers_svg(*this, f) + legend_svg(*this, f, id) + "</svg>\n";
}

}  // namespace ema
