// The cache of built graphs (inputs/graph_cache.hpp): the file format read back exactly, and
// refused when short, for another key or with an id past n; a point's graph built once and then
// read from the cache; a damaged file rebuilt; a graph larger than the cap never stored; the cap
// keeps the most recently used.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "core/params.hpp"
#include "inputs/graph_cache.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;

csr_graph sample(std::uint64_t n, bool weighted) { return build_csr(n, generate_edges(graph_kind::urand, n, 4, 3, weighted), false, weighted); }

bool same(const csr_graph& a, const csr_graph& b) {
  return a.n == b.n && a.directed == b.directed && a.offsets == b.offsets && a.neighbours == b.neighbours && a.weights == b.weights;
}

TEST(GraphCache, FileFormatRoundTripsAndRefusesDamage) {
  test::temp_dir dir;
  for (bool weighted : {false, true}) {
    const auto g = sample(1000, weighted);
    const auto path = dir.file("g.in");
    write_graph(path, g, 42);
    csr_graph back;
    ASSERT_EQ(read_graph(path, 42, back), graph_read::ok);
    EXPECT_TRUE(same(g, back));
    EXPECT_EQ(read_graph(path, 43, back), graph_read::absent) << "another key";
    fs::resize_file(path, fs::file_size(path) - 4);
    EXPECT_EQ(read_graph(path, 42, back), graph_read::damaged) << "short";
  }
  const auto g = sample(1000, false);
  const auto path = dir.file("bad.in");
  write_graph(path, g, 7);
  {  // the last neighbour id made 1000 (past n)
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(path) - 4));
    const std::uint32_t past = 1000;
    f.write(reinterpret_cast<const char*>(&past), 4);
  }
  csr_graph back;
  EXPECT_EQ(read_graph(path, 7, back), graph_read::damaged);
  EXPECT_EQ(read_graph(dir.file("missing.in"), 7, back), graph_read::absent);
  // A neighbour id rewritten within range (another valid graph): the checksum tells.
  write_graph(path, g, 7);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(path) - 4));
    const std::uint32_t other = (g.neighbours.back() + 1) % 1000;
    f.write(reinterpret_cast<const char*>(&other), 4);
  }
  EXPECT_EQ(read_graph(path, 7, back), graph_read::damaged);
}

TEST(GraphCache, AGraphFileIsKnownByItsContentNotItsNameOrTime) {
  test::temp_dir dir;
  std::ofstream(dir.file("a.el")) << "0 1\n1 2\n";
  std::ofstream(dir.file("b.el")) << "0 2\n1 2\n";  // same size, another graph
  fs::last_write_time(dir.file("b.el"), fs::last_write_time(dir.file("a.el")));
  EXPECT_NE(file_content_hash(dir.file("a.el")), file_content_hash(dir.file("b.el")));
  fs::copy_file(dir.file("a.el"), dir.file("c.el"));
  EXPECT_EQ(file_content_hash(dir.file("a.el")), file_content_hash(dir.file("c.el")));
  EXPECT_THROW(file_content_hash(dir.file("none.el")), std::runtime_error);
}

TEST(GraphCache, BuildsOnceThenReadsAndRebuildsWhatIsDamaged) {
  test::temp_dir dir;
  const auto params = param_set::from_map({});
  point_request r{1000, &params, 5, host_memory_kind::pageable, dir.file("cache"), 0};
  int builds = 0;
  auto build = [&] {
    ++builds;
    return sample(1000, false);
  };
  graph_source how{};
  const auto first = cached_graph(r, "bfs", 99, build, &how);
  EXPECT_EQ(how, graph_source::built_and_stored);
  const auto second = cached_graph(r, "bfs", 99, build, &how);
  EXPECT_EQ(how, graph_source::cached);
  EXPECT_EQ(builds, 1);
  EXPECT_TRUE(same(first, second));
  // Another key (another graph) at the same n and seed is built, not mistaken for it.
  cached_graph(r, "bfs", 100, build, &how);
  EXPECT_EQ(how, graph_source::built_and_stored);
  EXPECT_EQ(builds, 2);
  // A damaged file is rebuilt and replaced, and said so.
  for (const auto& e : fs::directory_iterator(dir.file("cache") + "/bfs")) fs::resize_file(e.path(), 100);
  cached_graph(r, "bfs", 99, build, &how);
  EXPECT_EQ(how, graph_source::rebuilt);
  EXPECT_EQ(builds, 3);
  // A cache that cannot be written: built, and said so.
  fs::remove_all(dir.file("cache") + "/bfs");
  std::ofstream(dir.file("cache") + "/bfs") << "a file where the problem's folder goes";
  cached_graph(r, "bfs", 99, build, &how);
  EXPECT_EQ(how, graph_source::not_stored);
  fs::remove(dir.file("cache") + "/bfs");
  // No cache: built every time.
  point_request none{1000, &params, 5, host_memory_kind::pageable};
  cached_graph(none, "bfs", 99, build, &how);
  EXPECT_EQ(how, graph_source::built);
  EXPECT_EQ(builds, 5);
}

TEST(GraphCache, TheCapKeepsTheMostRecentlyUsedAndNeverAGraphLargerThanIt) {
  test::temp_dir dir;
  const auto params = param_set::from_map({});
  const auto bytes = [&] {
    const auto g = sample(1000, false);
    return 48.0 + 8.0 * static_cast<double>(g.offsets.size()) + 4.0 * static_cast<double>(g.neighbours.size());
  }();
  int builds = 0;
  auto build = [&] {
    ++builds;
    return sample(1000, false);
  };
  graph_source how{};
  point_request tiny{1000, &params, 5, host_memory_kind::pageable, dir.file("cache"), bytes / 2};
  cached_graph(tiny, "bfs", 1, build, &how);
  EXPECT_EQ(how, graph_source::larger_than_cap);
  EXPECT_FALSE(fs::exists(dir.file("cache") + "/bfs") && !fs::is_empty(dir.file("cache") + "/bfs"));
  point_request one{1000, &params, 5, host_memory_kind::pageable, dir.file("cache"), bytes * 1.5};
  cached_graph(one, "bfs", 1, build, &how);
  cached_graph(one, "bfs", 2, build, &how);  // the second pushes the first out
  EXPECT_EQ(how, graph_source::built_and_stored);
  cached_graph(one, "bfs", 2, build, &how);
  EXPECT_EQ(how, graph_source::cached);
  const int before = builds;
  cached_graph(one, "bfs", 1, build, &how);
  EXPECT_EQ(how, graph_source::built_and_stored);
  EXPECT_EQ(builds, before + 1);
}

}  // namespace
}  // namespace ema
