// bfs / seq — the reference a user would write on one thread: a FIFO queue from the root, each
// vertex's neighbours in order, a vertex's depth and parent set when it is first seen (GAP's and
// Graph500's sequential baseline; the source's algorithms are level-synchronous forms of it).
#include "core/registry.hpp"
#include "problems/bfs/bfs.hpp"

namespace ema::bfs {
namespace {

output run(const input& in, run_context& ctx) {
  const csr_graph& g = in.g;
  std::vector<std::uint32_t> queue(g.n);
  return search_each_root(in, ctx, true, [&](std::uint32_t root, std::uint32_t* depth, std::uint32_t* parent) {
    std::size_t head = 0, tail = 0;
    depth[root] = 0;
    parent[root] = root;
    queue[tail++] = root;
    while (head < tail) {
      const std::uint32_t u = queue[head++];
      for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i)
        if (const std::uint32_t v = g.neighbours[i]; depth[v] == unreached) {
          depth[v] = depth[u] + 1;
          parent[v] = u;
          queue[tail++] = v;
        }
    }
  });
}

}  // namespace
}  // namespace ema::bfs

EMA_VARIANT(bfs_seq, ema::bfs::kit::variant<&ema::bfs::run>({
                         .name = "seq",
                         .backend = ema::backend::seq,
                         .role = ema::variant_role::anchor,
                         .description = "FIFO queue on one thread, depths and parents (the reference)",
                         .provenance = "textbook BFS, GAP's and Graph500's sequential baseline",
                     }));
