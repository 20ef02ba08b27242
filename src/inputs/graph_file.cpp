#include "inputs/graph_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "core/errors.hpp"
#include "inputs/text_file.hpp"

namespace ema {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

std::uint64_t integer(text_file& in, const std::string& s, const char* what) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) in.fail(fmt::format("'{}' is not a non-negative integer ({})", s, what));
  return v;
}

std::uint32_t weight(text_file& in, const std::string& s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) in.fail(fmt::format("'{}' is not a number (the weight)", s));
  if (v < 0 || v != std::floor(v) || v > 4294967295.0)
    in.fail(fmt::format("weight '{}' is not a non-negative integer below 2^32 (weights are integers, as in GAP)", s));
  return static_cast<std::uint32_t>(v);
}

std::uint32_t vertex(text_file& in, std::uint64_t id, std::uint64_t n, bool one_based) {
  if (one_based && id == 0) in.fail("vertex 0 in a 1-based file");
  const std::uint64_t v = one_based ? id - 1 : id;
  if (n && v >= n) in.fail(fmt::format("vertex {} is past the {} the file declares", id, n));
  if (v >= (std::uint64_t{1} << 32) - 1) in.fail(fmt::format("vertex {}: ids are 32-bit", id));
  return static_cast<std::uint32_t>(v);
}

graph_file read_mtx(text_file& in) {
  graph_file g;
  std::string line;
  if (!in.next(line) || line.rfind("%%MatrixMarket", 0) != 0) in.fail("not a Matrix Market file (no %%MatrixMarket header)");
  auto h = words(line);
  for (auto& w : h) std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (h.size() < 5 || h[1] != "matrix" || h[2] != "coordinate") in.fail("only coordinate Matrix Market files describe graphs");
  if (h[3] != "pattern" && h[3] != "integer" && h[3] != "real") in.fail(fmt::format("field '{}': pattern, integer or real", h[3]));
  g.weighted = h[3] != "pattern";
  if (h[4] != "general" && h[4] != "symmetric") in.fail(fmt::format("symmetry '{}': general or symmetric", h[4]));
  const bool symmetric = h[4] == "symmetric";  // each entry stands for both directions
  std::uint64_t entries = 0, read = 0;
  bool sized = false;
  while (in.next(line)) {
    const auto w = words(line);
    if (w.empty() || w[0][0] == '%') continue;
    if (!sized) {
      if (w.size() != 3) in.fail("the size line needs rows, columns and entries");
      g.n = std::max(integer(in, w[0], "rows"), integer(in, w[1], "columns"));
      entries = integer(in, w[2], "entries");
      sized = true;
      continue;
    }
    if (w.size() != (g.weighted ? 3u : 2u)) in.fail(fmt::format("an entry needs {} fields, got {}", g.weighted ? 3 : 2, w.size()));
    graph_edge e{vertex(in, integer(in, w[0], "row"), g.n, true), vertex(in, integer(in, w[1], "column"), g.n, true), 1};
    if (g.weighted) e.w = weight(in, w[2]);
    g.edges.push_back(e);
    ++read;
    if (symmetric && e.u != e.v) g.edges.push_back({e.v, e.u, e.w});
  }
  if (!sized) in.fail("no size line");
  if (read != entries) in.fail(fmt::format("the size line declares {} entries, the file holds {}", entries, read));
  return g;
}

graph_file read_el(text_file& in) {
  graph_file g;
  std::string line;
  std::uint64_t largest = 0;
  bool any = false, first = true;
  while (in.next(line)) {
    const auto w = words(line);
    if (w.empty() || w[0][0] == '#' || w[0][0] == '%') continue;
    if (w.size() != 2 && w.size() != 3) in.fail(fmt::format("an edge is 'u v' or 'u v w', got {} fields", w.size()));
    if (first)
      g.weighted = w.size() == 3, first = false;
    else if ((w.size() == 3) != g.weighted)
      in.fail("some edges have a weight and others not");
    graph_edge e{vertex(in, integer(in, w[0], "u"), 0, false), vertex(in, integer(in, w[1], "v"), 0, false), 1};
    if (g.weighted) e.w = weight(in, w[2]);
    largest = std::max<std::uint64_t>({largest, e.u, e.v});
    any = true;
    g.edges.push_back(e);
  }
  g.n = any ? largest + 1 : 0;
  return g;
}

graph_file read_gr(text_file& in) {
  graph_file g;
  g.weighted = true;
  std::string line;
  std::uint64_t declared = 0;
  bool problem = false;
  while (in.next(line)) {
    const auto w = words(line);
    if (w.empty() || w[0] == "c") continue;
    if (w[0] == "p") {
      if (problem) in.fail("a second problem line");
      if (w.size() != 4 || w[1] != "sp") in.fail("the problem line is 'p sp N M'");
      g.n = integer(in, w[2], "N");
      declared = integer(in, w[3], "M");
      problem = true;
    } else if (w[0] == "a") {
      if (!problem) in.fail("an arc before the 'p sp N M' line");
      if (w.size() != 4) in.fail("an arc is 'a U V W'");
      g.edges.push_back({vertex(in, integer(in, w[1], "U"), g.n, true), vertex(in, integer(in, w[2], "V"), g.n, true), weight(in, w[3])});
    } else {
      in.fail(fmt::format("'{}' lines are not DIMACS shortest-path lines (c, p, a)", w[0]));
    }
  }
  if (!problem) in.fail("no 'p sp N M' line");
  if (g.edges.size() != declared) in.fail(fmt::format("the problem line declares {} arcs, the file holds {}", declared, g.edges.size()));
  return g;
}

}  // namespace

graph_format graph_format_for(const std::string& path, const std::string& name) {
  std::string f = name;
  if (f.empty()) {
    const auto dot = path.find_last_of('.');
    f = dot == std::string::npos ? "" : path.substr(dot + 1);
    if (f == "txt" || f == "wel") f = "el";
  }
  if (f == "mtx") return graph_format::mtx;
  if (f == "el") return graph_format::el;
  if (f == "gr") return graph_format::gr;
  throw usage_error(fmt::format("{}: the graph format is not known from its name; say format=mtx, el or gr", path));
}

graph_file read_graph_file(const std::string& path, graph_format format) {
  text_file in(path);
  switch (format) {
    case graph_format::mtx:
      return read_mtx(in);
    case graph_format::gr:
      return read_gr(in);
    case graph_format::el:
      break;
  }
  return read_el(in);
}

}  // namespace ema
