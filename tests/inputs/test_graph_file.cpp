// Graph files: the same small graph (a path 0-1-2 plus an edge 2-3 of weight 7) in each format,
// 1-based ids shifted, Matrix Market's symmetric entries standing for both directions, and each
// format's malformed lines named with the file and the line.
#include <fstream>
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "inputs/graph_file.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

std::string write(const test::temp_dir& dir, const std::string& name, const std::string& text) {
  const auto path = dir.file(name);
  std::ofstream(path) << text;
  return path;
}

void expect_error(const std::string& path, const char* needle) {
  try {
    read_graph_file(path, graph_format_for(path, ""));
    ADD_FAILURE() << "accepted " << path;
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(GraphFile, EachFormatGivesTheSameGraph) {
  test::temp_dir dir;
  const auto mtx = write(dir, "g.mtx", "%%MatrixMarket matrix coordinate integer general\n% a comment\n4 4 3\n1 2 1\n2 3 1\n3 4 7\n");
  const auto el = write(dir, "g.wel", "# SNAP style\n0 1 1\n1 2 1\n2 3 7\n");
  const auto gr = write(dir, "g.gr", "c DIMACS\np sp 4 3\na 1 2 1\na 2 3 1\na 3 4 7\n");
  for (const auto& path : {mtx, el, gr}) {
    const auto f = read_graph_file(path, graph_format_for(path, ""));
    EXPECT_EQ(f.n, 4u) << path;
    ASSERT_EQ(f.edges.size(), 3u) << path;
    EXPECT_TRUE(f.weighted) << path;
    EXPECT_EQ(f.edges[2].u, 2u) << path;
    EXPECT_EQ(f.edges[2].v, 3u) << path;
    EXPECT_EQ(f.edges[2].w, 7u) << path;
    const auto g = build_csr(f.n, f.edges, false, true);
    EXPECT_EQ(g.input_edges(), 3u) << path;
  }
  const auto pattern = write(dir, "p.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n");
  const auto p = read_graph_file(pattern, graph_format::mtx);
  EXPECT_FALSE(p.weighted);
  EXPECT_EQ(build_csr(p.n, p.edges, true, false).input_edges(), 4u) << "symmetric entries stand for both directions";
  const auto plain = write(dir, "e.txt", "0 5\n5 0\n");
  EXPECT_EQ(read_graph_file(plain, graph_format_for(plain, "")).n, 6u);
  EXPECT_EQ(graph_format_for("x.data", "gr"), graph_format::gr);
  EXPECT_THROW(graph_format_for("x.data", ""), usage_error);
}

TEST(GraphFile, MalformedLinesAreNamed) {
  test::temp_dir dir;
  expect_error(write(dir, "a.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"), "only coordinate");
  expect_error(write(dir, "b.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n"), "declares 2 entries, the file holds 1");
  expect_error(write(dir, "c.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 1\n"), "c.mtx:3: vertex 0 in a 1-based file");
  expect_error(write(dir, "d.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 2.5\n"), "d.mtx:3: weight '2.5'");
  expect_error(write(dir, "e.el", "0 1\n1 x\n"), "e.el:2: 'x' is not a non-negative integer");
  expect_error(write(dir, "f.el", "0 1 3\n1 2\n"), "f.el:2: some edges have a weight");
  expect_error(write(dir, "g.gr", "a 1 2 3\n"), "g.gr:1: an arc before");
  expect_error(write(dir, "h.gr", "p sp 2 1\na 1 3 1\n"), "h.gr:2: vertex 3 is past the 2");
  expect_error(write(dir, "i.gr", "p sp 2 1\na 1 2 -1\n"), "i.gr:2: weight '-1'");
  expect_error(write(dir, "j.gr", "p sp 2 2\na 1 2 1\n"), "declares 2 arcs, the file holds 1");
}

}  // namespace
}  // namespace ema
