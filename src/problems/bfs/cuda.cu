// bfs / cuda — ours: direction-optimising BFS on the GPU (Beamer, Asanović, Patterson, SC 2012, the
// switch as in the GAP suite; on GPUs after Enterprise (Liu and Huang, SC 2015) and Gunrock's
// direction-optimising BFS), depths and parents:
// - top-down levels: the frontier as a queue, its edges expanded one per thread whatever the
//   degrees (problems/graph/frontier.cuh: a scan of the queue's degrees, a binary search per edge; a kron
//   graph's hubs spread over the whole GPU), each unvisited neighbour claimed by a compare-and-swap
//   on its parent, the winners appended to the next queue with one atomic per warp (a ballot), and
//   the degrees of the new frontier summed for the switch;
// - bottom-up levels: the frontier as a bitmap; a thread per unvisited vertex looks for a parent
//   among its neighbours and stops at the first (only its own thread writes it), setting its bit
//   in the next bitmap;
// - the switch (GAP's): bottom-up when the edges out of the frontier exceed 1/15 of the edges not
//   yet checked; back to top-down when the frontier stops growing and holds under n/18 vertices;
//   a directed graph top-down only (bottom-up needs in-edges; ema keeps no transpose).
// - small levels on the device: a top-down level with at most `local_edges` edges out of its
//   frontier (16384 unless set) and no vertex of more than 64 runs in one cooperative grid, and so
//   do the next levels while they stay that small, the grid synchronised between them
//   (top_down_device): a grid's thousands of levels of a few thousand vertices cost a launch and
//   a read-back between them, not a scan, a launch and a read-back each (what a road network
//   needs: Gunrock and Enterprise keep such levels on the device as well).
// The host decides the other levels from one read-back each (the queue's size, its degree sum and
// widest vertex, or the bitmap's count). Notes: `levels`, `bottom_up_levels`, `round_trips`,
// `local_runs` (the launches of top_down_device), summed over the roots, and `local_edges`.
#include <algorithm>
#include <cooperative_groups.h>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/graph/device_graph.cuh"
#include "problems/graph/frontier.cuh"
#include "problems/bfs/bfs.hpp"

namespace ema::bfs {
namespace {

constexpr std::uint64_t alpha = 15, beta = 18;

/// What the host reads back after a top-down level.
struct level_counts {
  unsigned long long size;    ///< vertices in the next queue (or woken bottom-up)
  unsigned long long scout;   ///< their degrees' sum
  unsigned long long widest;  ///< the largest of their degrees (top-down levels)
};

__global__ void __launch_bounds__(level_launch::max_threads)
    top_down(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ adj, std::uint32_t* depth, std::uint32_t* parent,
             const std::uint32_t* __restrict__ queue, std::uint64_t queue_size, const std::uint64_t* __restrict__ starts, std::uint32_t* next_queue,
             level_counts* counts, std::uint32_t level) {
  const unsigned lane = threadIdx.x % 32;
  for_each_frontier_edge(offsets, queue, queue_size, starts, [&](bool active, std::uint32_t u, std::uint64_t i) {
    bool claimed = false;
    std::uint32_t v = 0;
    if (active) {
      v = adj[i];
      if (parent[v] == unreached && atomicCAS(&parent[v], unreached, u) == unreached) {
        depth[v] = level + 1;
        claimed = true;
      }
    }
    const unsigned won = __ballot_sync(0xffffffffu, claimed);
    if (!won) return;
    const int leader = __ffs(won) - 1;
    unsigned long long at = 0;
    // The new vertices' degrees summed over the warp (lane 0 holds the sum), for the switch.
    const unsigned long long degree = claimed ? offsets[v + 1] - offsets[v] : 0;
    const unsigned long long degrees = __shfl_sync(0xffffffffu, warp_sum(degree), 0);
    const unsigned long long widest = __shfl_sync(0xffffffffu, warp_max(degree), 0);
    if (static_cast<int>(lane) == leader) {
      at = atomicAdd(&counts->size, static_cast<unsigned long long>(__popc(won)));
      atomicAdd(&counts->scout, degrees);
      atomicMax(&counts->widest, widest);
    }
    at = __shfl_sync(0xffffffffu, at, leader);
    if (claimed) next_queue[at + __popc(won & ((1u << lane) - 1))] = v;
  });
}

/// Where a run of levels on the device left the search (top_down_device).
struct local_state {
  unsigned long long size, scout, unchecked;  ///< the queue's vertices and their degrees; edges not yet checked
  std::uint32_t level;                        ///< the next level's number
  std::uint32_t swapped;                      ///< 1: the queue is now in the second buffer
};

/// Top-down levels back to back on the whole GPU while they stay small, the grid synchronised
/// between them (a cooperative launch) instead of returning to the host: a thread per frontier
/// vertex, its edges in turn (each level holds at most `max_edges` edges out of its frontier and
/// no vertex of more than device_max_degree), claims as top_down's. After each level every thread reads
/// the same counts and makes the same choice: go on, or hand back to the host (the level grew,
/// holds a wide vertex, GAP's switch calls for bottom-up, or the search is over). The counts
/// rotate over three sets: a level appends into one, the threads read the one the last level
/// filled, and thread 0 clears the third for the next level. The queues and counts other
/// multiprocessors wrote are read past L1 (__ldcg): a line cached two levels ago would be stale.
__global__ void __launch_bounds__(level_launch::max_loop_threads)
    top_down_device(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ adj, std::uint32_t* depth, std::uint32_t* parent,
                    std::uint32_t* queue, std::uint32_t* next, level_counts* counts, local_state in, std::uint64_t max_edges, bool may_switch,
                    local_state* out) {
  const auto grid = cooperative_groups::this_grid();
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long size = in.size, scout = in.scout, unchecked = in.unchecked;
  std::uint32_t level = in.level, levels = 0;
  for (;;) {
    unchecked -= scout < unchecked ? scout : unchecked;
    level_counts* filling = &counts[(levels + 1) % 3];
    if (first == 0) counts[(levels + 2) % 3] = level_counts{};
    for (std::uint64_t k = first; k < size; k += stride) {
      const std::uint32_t u = __ldcg(queue + k);
      for (std::uint64_t i = offsets[u], end = offsets[u + 1]; i < end; ++i) {
        const std::uint32_t v = adj[i];
        if (parent[v] == unreached && atomicCAS(&parent[v], unreached, u) == unreached) {
          depth[v] = level + 1;
          const unsigned long long degree = offsets[v + 1] - offsets[v];
          next[atomicAdd(&filling->size, 1ull)] = v;
          atomicAdd(&filling->scout, degree);
          atomicMax(&filling->widest, degree);
        }
      }
    }
    grid.sync();
    size = __ldcg(&filling->size);
    scout = __ldcg(&filling->scout);
    const unsigned long long widest = __ldcg(&filling->widest);
    ++level;
    ++levels;
    std::uint32_t* t = queue;
    queue = next;
    next = t;
    if (size == 0 || scout > max_edges || widest > device_max_degree || (may_switch && scout > unchecked / alpha)) break;
  }
  if (first == 0) *out = {size, scout, unchecked, level, levels & 1u};
}

__global__ void __launch_bounds__(level_launch::max_threads)
    bottom_up(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ adj, std::uint32_t* depth, std::uint32_t* parent,
              const unsigned long long* __restrict__ front, unsigned long long* next, std::uint64_t n, level_counts* counts, std::uint32_t level) {
  const std::uint64_t v = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  bool woke = false;
  if (v < n && parent[v] == unreached)
    for (std::uint64_t i = offsets[v]; i < offsets[v + 1]; ++i)
      if (const std::uint32_t u = adj[i]; (front[u >> 6] >> (u & 63)) & 1) {
        parent[v] = u;
        depth[v] = level + 1;
        atomicOr(&next[v >> 6], 1ull << (v & 63));
        woke = true;
        break;
      }
  const unsigned won = __ballot_sync(0xffffffffu, woke);
  if (threadIdx.x % 32 == 0 && won) atomicAdd(&counts->size, static_cast<unsigned long long>(__popc(won)));
}

__global__ void queue_to_bitmap(const std::uint32_t* __restrict__ queue, std::uint64_t size, unsigned long long* bits) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < size) atomicOr(&bits[queue[k] >> 6], 1ull << (queue[k] & 63));
}

__global__ void bitmap_to_queue(const unsigned long long* __restrict__ bits, std::uint64_t n, std::uint32_t* queue, level_counts* counts) {
  const std::uint64_t v = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool in = v < n && ((bits[v >> 6] >> (v & 63)) & 1);
  const unsigned lane = threadIdx.x % 32;
  const unsigned mask = __ballot_sync(0xffffffffu, in);
  if (!mask) return;
  const int leader = __ffs(mask) - 1;
  unsigned long long at = 0;
  if (static_cast<int>(lane) == leader) at = atomicAdd(&counts->size, static_cast<unsigned long long>(__popc(mask)));
  at = __shfl_sync(0xffffffffu, at, leader);
  if (in) queue[at + __popc(mask & ((1u << lane) - 1))] = static_cast<std::uint32_t>(v);
}

__global__ void start(std::uint32_t* depth, std::uint32_t* parent, std::uint32_t* queue, std::uint32_t root) {
  depth[root] = 0;
  parent[root] = root;
  queue[0] = root;
}

output run(const input& in, run_context& ctx) {
  const csr_graph& host = in.g;
  const std::uint64_t n = in.n(), k = in.roots.size(), words = (n + 63) / 64;
  if (n > 0xfffffffeull) throw usage_error("bfs cuda: at most 2^32 - 2 vertices");
  output o;
  o.depth.resize(k * n);
  o.parent.resize(k * n);
  const auto l = ctx.launch(level_launch{});
  const auto block = static_cast<unsigned>(l.threads);
  auto blocks_for = [block](std::uint64_t threads) { return grid_for(threads, block, 1u << 30); };
  cuda::session gpu(ctx);
  const auto g = upload_graph(gpu, host);
  std::uint32_t* depth = gpu.alloc<std::uint32_t>(k * n);
  std::uint32_t* parent = gpu.alloc<std::uint32_t>(k * n);
  std::uint32_t* queues[2] = {gpu.alloc<std::uint32_t>(n), gpu.alloc<std::uint32_t>(n)};
  unsigned long long* bitmaps[2] = {gpu.alloc<unsigned long long>(words), gpu.alloc<unsigned long long>(words)};
  level_counts* counts = gpu.alloc<level_counts>(1);
  local_state* local = gpu.alloc<local_state>(1);
  level_counts* device_counts = gpu.alloc<level_counts>(3);
  const auto device_block = static_cast<unsigned>(l.loop_threads);
  const device_loop loop(gpu, ctx, top_down_device, device_block, graph_problem::local_edges_of(ctx.params(), "bfs"));
  const std::uint64_t local_edges = loop.local_edges;
  frontier_expander expand(gpu, n);
  std::int64_t levels = 0, bottom_up_levels = 0, round_trips = 0, local_runs = 0;
  auto read_counts = [&] {
    ++round_trips;
    return gpu.read(counts);
  };
  each_root_on_device(
      gpu, ctx, k,
      [&](std::uint64_t r) {
        std::uint32_t* d = depth + r * n;
        std::uint32_t* p = parent + r * n;
        gpu.fill_bytes(d, 0xff, n);
        gpu.fill_bytes(p, 0xff, n);
        start<<<1, 1, 0, gpu.stream()>>>(d, p, queues[0], in.roots[r]);
        EMA_CUDA_CHECK_LAUNCH();
        std::uint64_t size = 1, scout = host.degree(in.roots[r]), unchecked = g.m;
        std::uint32_t level = 0;
        std::uint64_t widest = scout;  // the widest vertex of the queue (its only one, the root)
        bool scout_known = true;       // false after bottom-up levels: the queue's degrees not summed
        while (size > 0) {
          if (!host.directed && scout > unchecked / alpha) {
            gpu.fill_bytes(bitmaps[0], 0, words);
            queue_to_bitmap<<<blocks_for(size), block, 0, gpu.stream()>>>(queues[0], size, bitmaps[0]);
            EMA_CUDA_CHECK_LAUNCH();
            std::uint64_t awake = size, before = 0;
            do {
              before = awake;
              gpu.fill_bytes(bitmaps[1], 0, words);
              gpu.fill_bytes(counts, 0, 1);
              bottom_up<<<blocks_for(n), block, 0, gpu.stream()>>>(g.offsets, g.neighbours, d, p, bitmaps[0], bitmaps[1], n, counts, level);
              EMA_CUDA_CHECK_LAUNCH();
              awake = read_counts().size;
              std::swap(bitmaps[0], bitmaps[1]);
              ++level;
              ++levels;
              ++bottom_up_levels;
            } while (awake > 0 && (awake >= before || awake > n / beta));
            gpu.fill_bytes(counts, 0, 1);
            bitmap_to_queue<<<blocks_for(n), block, 0, gpu.stream()>>>(bitmaps[0], n, queues[0], counts);
            EMA_CUDA_CHECK_LAUNCH();
            size = read_counts().size;
            scout = 1;  // measured again by the next top-down level, on the host
            scout_known = false;
            continue;
          }
          if (local_edges > 0 && scout_known && scout <= local_edges && widest <= device_max_degree) {
            // Small: this level and the next small ones on the device, without the host.
            gpu.fill_bytes(device_counts, 0, 3);
            const std::uint64_t* offsets = g.offsets;
            const std::uint32_t* adj = g.neighbours;
            local_state from{size, scout, unchecked, level, 0};
            std::uint64_t max_edges = local_edges;
            bool may_switch = !host.directed;
            void* args[] = {&offsets, &adj, &d, &p, &queues[0], &queues[1], &device_counts, &from, &max_edges, &may_switch, &local};
            loop.launch(gpu, top_down_device, device_block, args);
            const local_state st = gpu.read(local);
            ++round_trips;
            ++local_runs;
            levels += st.level - level;
            level = st.level;
            size = st.size;
            scout = st.scout;
            unchecked = st.unchecked;
            widest = device_max_degree + 1;  // not read back: the next level goes to the host, which measures it
            if (st.swapped) std::swap(queues[0], queues[1]);
            continue;
          }
          unchecked -= std::min(unchecked, scout);
          gpu.fill_bytes(counts, 0, 1);
          const std::uint64_t* starts = expand.scan(g.offsets, queues[0], size);
          top_down<<<expand.expansion_blocks(block), block, 0, gpu.stream()>>>(g.offsets, g.neighbours, d, p, queues[0], size, starts, queues[1],
                                                                               counts, level);
          EMA_CUDA_CHECK_LAUNCH();
          const auto c = read_counts();
          size = c.size;
          scout = c.scout;
          widest = c.widest;
          scout_known = true;
          std::swap(queues[0], queues[1]);
          ++level;
          ++levels;
        }
      },
      [&] {
        gpu.download(o.depth.data(), depth, k * n);
        gpu.download(o.parent.data(), parent, k * n);
      });
  ctx.note("levels", levels);
  ctx.note("bottom_up_levels", bottom_up_levels);
  ctx.note("round_trips", round_trips);
  ctx.note("local_runs", local_runs);
  return o;
}

}  // namespace
}  // namespace ema::bfs

EMA_VARIANT(
    bfs_cuda,
    ema::bfs::kit::variant<&ema::bfs::run>({
        .name = "cuda",
        .backend = ema::backend::cuda,
        .role = ema::variant_role::ours,
        .description = "ours: direction-optimising on the GPU (load-balanced top-down queue, bottom-up bitmap, GAP's switch), depths and parents",
        .provenance = "Beamer et al. SC 2012, on the GPU as Enterprise (SC 2015) and Gunrock",
        .launch = ema::level_launch::fields,
        .tuning = ema::bfs::local_edges_tuning,
        .not_applicable = &ema::bfs::too_many_vertices,
    }));
