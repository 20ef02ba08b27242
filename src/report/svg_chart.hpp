// Log-log charts drawn as inline SVG, so that an HTML report needs no script library and works
// offline: measured points with whiskers (their interquartile range), fitted curves with a confidence band,
// vertical markers (a knee), a legend whose entries show and hide their series.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ema {

struct chart_point {
  double x = 0, y = 0;
  double lo = 0, hi = 0;  ///< whisker ends; equal to y (or 0) for none
  std::string tip;        ///< hover text
};

struct chart_series {
  std::string name;
  int color = 0;                                            ///< palette index
  std::vector<chart_point> points;                          ///< markers
  std::vector<std::pair<double, double>> curve;             ///< a fitted line
  std::vector<std::pair<double, double>> band_lo, band_hi;  ///< its confidence band
  bool dashed = false;
  std::string curve_label;  ///< text along the curve's first segment, above it (a roof's name); empty for none
};

struct chart_marker {
  double x = 0;
  std::string label;
  int color = 0;  ///< palette index; -1 for a neutral grey
};

struct chart {
  std::string title, x_label, y_label;
  std::string subtitle;                                   ///< shown on hover over the title
  std::function<std::string(double)> format_x, format_y;  ///< tick labels
  bool binary_y = false;                                  ///< ticks at powers of 2 (bytes) instead of 1, 2, 5 times powers of 10
  std::vector<chart_series> series;
  std::vector<chart_marker> markers;  ///< vertical lines at x (a knee)
  std::vector<chart_marker> levels;   ///< horizontal lines at y, `x` holding the y value (1× on a speedup chart)

  /// The SVG element; `id` prefixes the element ids (unique per page). Points, curves and bands
  /// with non-positive or non-finite coordinates are left out (log axes).
  std::string svg(const std::string& id) const;
  /// Whether it has anything to draw.
  bool empty() const;
};

/// Escapes &, <, >, " and ' for HTML text and attributes.
std::string html_escape(const std::string& s);

/// "1k", "64k", "1M", "2.5G": a size for an axis.
std::string format_count(double n);

}  // namespace ema
