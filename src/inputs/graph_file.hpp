// Graphs read from files, for the bfs and sssp problems (`graph=PATH`), in the formats the field's
// data sets come in; the format from the extension or named (`format=`):
//   mtx   Matrix Market coordinate (`%%MatrixMarket matrix coordinate pattern|integer|real
//         general|symmetric`): 1-based `i j [value]` entries; n = max(rows, cols); a value is the
//         edge's weight;
//   el    SNAP-style edge lists (.el, .txt, .wel): `u v [w]` per line, `#` or `%` comments, ids
//         0-based as written, n = the largest id + 1;
//   gr    DIMACS shortest-path (.gr): `c` comments, `p sp N M`, then `a U V W` 1-based.
// Every id is shifted to 0-based (the problems' pages say so); a weight must be a non-negative
// integer below 2^32 (GAP's integer weights; a real value with a fraction is refused); a malformed
// line is an error naming the file and the line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inputs/graph.hpp"

namespace ema {

enum class graph_format { mtx, el, gr };

/// The format a `format=` value names, or the path's extension's when `name` is empty.
graph_format graph_format_for(const std::string& path, const std::string& name);

struct graph_file {
  std::uint64_t n = 0;
  std::vector<graph_edge> edges;
  bool weighted = false;  ///< the file gives weights (else every weight is 1)
};

graph_file read_graph_file(const std::string& path, graph_format format);

}  // namespace ema
