// bfs and sssp on the GPU (run on the GPU machine; exits 77 elsewhere): every CUDA variant of both
// graph problems verified on larger generated graphs of each kind, directed and not, and giving the
// same result as seq; the host loops record their levels or rounds and round trips, and every
// variant each root's time; the small levels and steps run on the device (local_edges) agree with
// the host loops.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "measure/gpu.hpp"

namespace ema {
namespace {

struct ran {
  outcome result;
  std::map<std::string, std::string> notes;
};

ran run_one(const char* problem, const variant_desc& v, std::uint64_t n, const std::vector<std::string>& a) {
  const auto& p = find_problem(problem);
  const auto params = param_set::resolve(problem, p.params, a);
  auto w = p.prepare({n, &params, 5, host_memory_kind::pinned});
  run_context ctx(n, params, devices_used(v.backend, gpu::device_count()));
  ctx.begin_repetition();
  auto result = v.run(*w, ctx);
  return {result, ctx.notes()};
}

TEST(GraphsGpu, EveryCudaVariantMatchesSeqOnEveryKindOfGraph) {
  const std::vector<std::vector<std::string>> graphs = {
      {"graph=kron"}, {"graph=kron", "directed=true"}, {"graph=urand", "degree=8"}, {"graph=grid"}, {"graph=grid", "directed=true", "roots=3"}};
  for (const char* problem : {"bfs", "sssp"})
    for (const auto& a : graphs) {
      const std::uint64_t n = 1 << 16;
      const auto seq = run_one(problem, find_variant(problem, "seq"), n, a);
      ASSERT_TRUE(seq.result.verified) << problem << " seq: " << seq.result.reason;
      for (const auto* v : variants_of(problem)) {
        if (!uses_gpu(v->backend)) continue;
        const auto r = run_one(problem, *v, n, a);
        EXPECT_TRUE(r.result.verified) << problem << " " << v->name << " " << a[0] << ": " << r.result.reason;
        EXPECT_EQ(r.result.result_json, seq.result.result_json) << problem << " " << v->name;
        EXPECT_TRUE(r.notes.count("root_ms")) << problem << " " << v->name;
      }
    }
}

TEST(GraphsGpu, HostLoopsRecordTheirRoundTrips) {
  // A 64 x 64 grid from its corner (vertex 0): depth 126, so 127 levels, the last finding nothing.
  const auto bfs = run_one("bfs", find_variant("bfs", "cuda-listing"), 1 << 12, {"graph=grid", "source=0"});
  ASSERT_TRUE(bfs.result.verified) << bfs.result.reason;
  EXPECT_EQ(bfs.notes.at("levels"), bfs.notes.at("round_trips"));
  EXPECT_EQ(bfs.notes.at("levels"), "127");
  const auto sssp = run_one("sssp", find_variant("sssp", "cuda-listing"), 1 << 12, {"graph=grid", "source=0"});
  ASSERT_TRUE(sssp.result.verified) << sssp.result.reason;
  EXPECT_GE(std::stoi(sssp.notes.at("rounds")), 2);
}

// A `cuda` variant's small levels or steps on the device (local_edges) against its host loop alone
// (local_edges=0) on every kind of graph: the same answers, and for bfs the same levels, with the
// device loop taken at least once and never more read-backs; 64 makes a search go back and forth
// between the two.
void expect_device_loop_agrees(const char* problem, const std::vector<std::vector<std::string>>& graphs) {
  const auto& cuda = find_variant(problem, "cuda");
  for (const auto& a : graphs) {
    auto with = [&](const std::string& local) {
      auto b = a;
      b.push_back("local_edges=" + local);
      return run_one(problem, cuda, 1 << 16, b);
    };
    const auto host = with("0");
    ASSERT_TRUE(host.result.verified) << problem << " " << a[0] << ": " << host.result.reason;
    EXPECT_EQ(host.notes.at("local_runs"), "0");
    for (const char* local : {"64", "2048", "16384"}) {
      const auto r = with(local);
      const std::string what = fmt::format("{} {} local_edges={}", problem, fmt::join(a, ","), local);
      EXPECT_TRUE(r.result.verified) << what << ": " << r.result.reason;
      EXPECT_EQ(r.result.result_json, host.result.result_json) << what;
      if (host.notes.count("levels")) EXPECT_EQ(r.notes.at("levels"), host.notes.at("levels")) << what;
      EXPECT_GT(std::stoi(r.notes.at("local_runs")), 0) << what;
      EXPECT_LE(std::stoi(r.notes.at("round_trips")), std::stoi(host.notes.at("round_trips"))) << what;
    }
  }
}

// bfs cuda's small levels on the device, and a grid searched with a handful of read-backs.
TEST(GraphsGpu, BfsSmallLevelsOnTheDeviceAgreeWithTheHostLoop) {
  expect_device_loop_agrees(
      "bfs",
      {{"graph=kron"}, {"graph=kron", "directed=true"}, {"graph=urand", "degree=8"}, {"graph=grid"}, {"graph=grid", "directed=true", "roots=3"}});
  const auto& cuda = find_variant("bfs", "cuda");
  // A 64 x 64 grid from its corner: 127 levels, the widest 64 vertices; all run on the device but
  // the last few, where GAP's switch goes bottom-up (from the host), so a handful of read-backs.
  const auto grid = run_one("bfs", cuda, 1 << 12, {"graph=grid", "source=0"});
  ASSERT_TRUE(grid.result.verified) << grid.result.reason;
  EXPECT_EQ(grid.notes.at("levels"), "127");
  EXPECT_GE(std::stoi(grid.notes.at("local_runs")), 1);
  EXPECT_LT(std::stoi(grid.notes.at("round_trips")), 127 / 4);
  // At most 64 edges a level on the device: the middle levels (up to 64 vertices, ~4 edges each) go to the host.
  const auto small = run_one("bfs", cuda, 1 << 12, {"graph=grid", "source=0", "local_edges=64"});
  ASSERT_TRUE(small.result.verified) << small.result.reason;
  EXPECT_EQ(small.notes.at("levels"), "127");
  EXPECT_GT(std::stoi(small.notes.at("round_trips")), std::stoi(grid.notes.at("round_trips")) + 30);
}

// sssp cuda's small steps on the device (off unless set), and a grid's buckets with far fewer read-backs.
TEST(GraphsGpu, SsspSmallStepsOnTheDeviceAgreeWithTheHostLoop) {
  expect_device_loop_agrees("sssp", {{"graph=kron"},
                                     {"graph=kron", "directed=true"},
                                     {"graph=urand", "degree=8"},
                                     {"graph=grid"},
                                     {"graph=grid", "directed=true", "roots=3"},
                                     {"graph=grid", "delta=1"}});
  const auto& cuda = find_variant("sssp", "cuda");
  EXPECT_EQ(run_one("sssp", cuda, 1 << 10, {"graph=grid"}).notes.at("local_edges"), "0");  // off unless set
  const auto grid = run_one("sssp", cuda, 1 << 12, {"graph=grid", "source=0", "local_edges=16384"});
  const auto host = run_one("sssp", cuda, 1 << 12, {"graph=grid", "source=0"});  // off by default
  ASSERT_TRUE(grid.result.verified) << grid.result.reason;
  EXPECT_EQ(grid.result.result_json, host.result.result_json);
  EXPECT_LT(std::stoi(grid.notes.at("round_trips")) * 10, std::stoi(host.notes.at("round_trips")));
}

}  // namespace
}  // namespace ema
