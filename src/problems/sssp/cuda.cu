// sssp / cuda — ours: near-far worklist SSSP on the GPU (Davidson, Baxter, Garland and Owens,
// "Work-efficient parallel GPU methods for single-source shortest paths", IPDPS 2014; a two-bucket
// delta-stepping):
// - the near queue holds vertices whose distance is below the threshold; its edges are relaxed one
//   per thread whatever the degrees (problems/graph/frontier.cuh, atomicMin on the distance); a vertex
//   improved below the threshold goes to the next near queue, one improved at or past it to the
//   far pile; a stamp per vertex and queue keeps a vertex at most once in each;
// - when the near queue is empty, the threshold moves past the smallest distance in the far pile
//   (a step of Δ, or further where the pile holds nothing closer), and the far pile is split:
//   vertices settled since (their distance now below the old threshold) dropped, those below the
//   new threshold to the near queue, the rest kept (each once);
// - Δ: the parameter `delta`, 64 by default (note `delta`);
// - small steps on the device: while the near queue has at most `local_edges` edges out of it
//   (0 unless set: off, as it costs kron graphs 14%; 16384 for high-diameter graphs; no vertex of
//   more than 64) and the far pile at most 16 times that, the
//   near iterations and the splits run back to back in one cooperative grid, synchronised between
//   them (near_far_device), without the host: a high-diameter graph's tens of thousands of small
//   buckets cost a launch and a read-back between them, not each.
// From the host, one count is read back per near iteration and two per split. Notes `iterations`,
// `splits`, `round_trips`, `local_runs` (the launches of near_far_device), summed over the roots,
// and `local_edges`.
#include <algorithm>
#include <cooperative_groups.h>

#include "core/registry.hpp"
#include "problems/graph/device_graph.cuh"
#include "problems/graph/frontier.cuh"
#include "problems/sssp/sssp.hpp"

namespace ema::sssp {
namespace {

struct counters {
  unsigned long long near;         ///< vertices in the queue being built
  unsigned long long far;          ///< vertices in the far pile being built
  unsigned long long closest;      ///< the least distance in the far pile (a split's first pass)
  unsigned long long near_scout;   ///< the degrees of the queue being built, summed
  unsigned long long near_widest;  ///< and the largest of them
};
constexpr counters fresh_counters{0, 0, ~0ull, 0, 0};

__device__ __forceinline__ void push(std::uint32_t v, bool yes, std::uint32_t* queue, unsigned long long* size) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned mask = __ballot_sync(0xffffffffu, yes);
  if (!mask) return;
  const int leader = __ffs(mask) - 1;
  unsigned long long at = 0;
  if (static_cast<int>(lane) == leader) at = atomicAdd(size, static_cast<unsigned long long>(__popc(mask)));
  at = __shfl_sync(0xffffffffu, at, leader);
  if (yes) queue[at + __popc(mask & ((1u << lane) - 1))] = v;
}

/// push() into a near queue, counting what the device loop needs to know to take it: its degrees
/// summed and whether a vertex is wider than device_max_degree. Only while they might still allow
/// it: once the sum passes `max_edges` (0: no device loop) the warps stop counting, so a large
/// queue costs one read of the sum a warp, not three atomics on one address.
__device__ __forceinline__ void push_near(std::uint32_t v, bool yes, std::uint32_t* queue, counters* c, const std::uint64_t* __restrict__ offsets,
                                          std::uint64_t max_edges) {
  if (!__any_sync(0xffffffffu, yes)) return;
  push(v, yes, queue, &c->near);
  if (max_edges == 0) return;
  const unsigned lane = threadIdx.x % 32;
  const unsigned long long so_far = __shfl_sync(0xffffffffu, lane == 0 ? *static_cast<volatile unsigned long long*>(&c->near_scout) : 0ull, 0);
  if (so_far > max_edges) return;  // too large for the device loop already: an exact sum is not needed
  const unsigned long long degree = yes ? offsets[v + 1] - offsets[v] : 0;
  const unsigned long long sum = warp_sum(degree), widest = warp_max(degree);
  if (lane == 0) {
    atomicAdd(&c->near_scout, sum);
    if (widest > device_max_degree) atomicMax(&c->near_widest, widest);
  }
}

__global__ void __launch_bounds__(level_launch::max_threads)
    relax_near(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ adj, const std::uint32_t* __restrict__ weight,
               std::uint32_t* dist, const std::uint32_t* __restrict__ near, std::uint64_t near_size, const std::uint64_t* __restrict__ starts,
               std::uint32_t* next_near, std::uint32_t* far, counters* c, std::uint32_t* near_stamp, std::uint32_t near_id, std::uint32_t* far_stamp,
               std::uint32_t far_id, std::uint64_t threshold, std::uint64_t max_edges) {
  for_each_frontier_edge(offsets, near, near_size, starts, [&](bool active, std::uint32_t u, std::uint64_t i) {
    bool to_near = false, to_far = false;
    std::uint32_t v = 0;
    if (active) {
      v = adj[i];
      const std::uint32_t through = dist[u] + weight[i];
      if (through < dist[v] && atomicMin(&dist[v], through) > through) {
        if (through < threshold)
          to_near = atomicExch(&near_stamp[v], near_id) != near_id;
        else
          to_far = atomicExch(&far_stamp[v], far_id) != far_id;
      }
    }
    push_near(v, to_near, next_near, c, offsets, max_edges);
    push(v, to_far, far, &c->far);
  });
}

__global__ void closest_far(const std::uint32_t* __restrict__ far, std::uint64_t size, const std::uint32_t* __restrict__ dist, std::uint64_t settled,
                            counters* c) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < size)
    if (const std::uint32_t d = dist[far[k]]; d >= settled) atomicMin(&c->closest, static_cast<unsigned long long>(d));
}

__global__ void split_far(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ far, std::uint64_t size,
                          const std::uint32_t* __restrict__ dist, std::uint64_t settled, std::uint64_t threshold, std::uint32_t* near,
                          std::uint32_t* kept, counters* c, std::uint32_t* near_stamp, std::uint32_t near_id, std::uint32_t* far_stamp,
                          std::uint32_t far_id, std::uint64_t max_edges) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  bool to_near = false, to_far = false;
  std::uint32_t v = 0;
  if (k < size) {
    v = far[k];
    const std::uint32_t d = dist[v];
    if (d >= settled) {  // else settled by a near iteration since it was piled
      if (d < threshold)
        to_near = atomicExch(&near_stamp[v], near_id) != near_id;
      else
        to_far = atomicExch(&far_stamp[v], far_id) != far_id;
    }
  }
  push_near(v, to_near, near, c, offsets, max_edges);
  push(v, to_far, kept, &c->far);
}

/// The device loop's append to a near queue (one thread, the queue small): its size, degree sum and widest vertex.
__device__ __forceinline__ void append_near(std::uint32_t v, std::uint32_t* queue, counters* c, const std::uint64_t* __restrict__ offsets) {
  const unsigned long long degree = offsets[v + 1] - offsets[v];
  queue[atomicAdd(&c->near, 1ull)] = v;
  atomicAdd(&c->near_scout, degree);
  atomicMax(&c->near_widest, degree);
}

/// Where a run of steps on the device left the search (near_far_device).
struct loop_state {
  unsigned long long near_size, near_scout, near_widest, far_size, settled, threshold;
  std::uint32_t near_id, far_id;
  std::uint32_t near_swapped, far_swapped;  ///< 1: the near queue (far pile) is now in the second buffer
  std::uint32_t iterations, splits;
  std::uint32_t finished;  ///< 1: the search is over
};

/// The near-far loop itself on the whole GPU while its steps stay small, the grid synchronised
/// between them (a cooperative launch) instead of returning to the host: near iterations while the
/// queue has at most `max_edges` edges and no vertex of more than device_max_degree (a thread per
/// queued vertex walking its edges), and the far pile's splits while it holds at most `max_far`
/// vertices (a thread per piled vertex), each step exactly as the host's kernels do it. Every
/// thread reads the same counts after each barrier and makes the same choice: go on, hand back to
/// the host (a step too large), or stop (the search is over). The counts rotate over three sets: a
/// step fills one, the threads read the one the last step filled, thread 0 clears the next. The
/// distances, queues and counts other multiprocessors wrote are read past L1 (__ldcg): a line
/// cached before a barrier could be stale after it, and a stale distance would relax too little.
__global__ void __launch_bounds__(level_launch::max_loop_threads)
    near_far_device(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ adj, const std::uint32_t* __restrict__ weight,
                    std::uint32_t* dist, std::uint32_t* near, std::uint32_t* next_near, std::uint32_t* far, std::uint32_t* kept, counters* sets,
                    std::uint32_t* near_stamp, std::uint32_t* far_stamp, loop_state st, std::uint64_t delta, std::uint64_t max_edges,
                    std::uint64_t max_far, loop_state* out) {
  const auto grid = cooperative_groups::this_grid();
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned step = 0;
  auto filling = [&] {
    if (first == 0) sets[(step + 1) % 3] = fresh_counters;
    return &sets[step % 3];
  };
  auto filled = [&] {  // after the barrier: what the step wrote
    grid.sync();
    return &sets[step++ % 3];
  };
  st.near_swapped = st.far_swapped = st.iterations = st.splits = st.finished = 0;
  for (;;) {
    while (st.near_size > 0) {
      if (st.near_scout > max_edges || st.near_widest > device_max_degree) goto hand_back;
      ++st.near_id;
      counters* w = filling();
      for (std::uint64_t k = first; k < st.near_size; k += stride) {
        const std::uint32_t u = __ldcg(near + k);
        const std::uint32_t du = __ldcg(dist + u);
        for (std::uint64_t i = offsets[u], end = offsets[u + 1]; i < end; ++i) {
          const std::uint32_t v = adj[i];
          const std::uint32_t through = du + weight[i];
          if (through < __ldcg(dist + v) && atomicMin(&dist[v], through) > through) {
            if (through < st.threshold) {
              if (atomicExch(&near_stamp[v], st.near_id) != st.near_id) append_near(v, next_near, w, offsets);
            } else if (atomicExch(&far_stamp[v], st.far_id) != st.far_id) {
              far[st.far_size + atomicAdd(&w->far, 1ull)] = v;
            }
          }
        }
      }
      const counters* r = filled();
      st.near_size = __ldcg(&r->near);
      st.near_scout = __ldcg(&r->near_scout);
      st.near_widest = __ldcg(&r->near_widest);
      st.far_size += __ldcg(&r->far);
      std::uint32_t* t = near;
      near = next_near;
      next_near = t;
      st.near_swapped ^= 1u;
      ++st.iterations;
    }
    if (st.far_size == 0) {
      st.finished = 1;
      goto hand_back;
    }
    if (st.far_size > max_far) goto hand_back;
    // The next threshold: a step of delta, or past the closest vertex of the pile.
    st.settled = st.threshold;
    counters* w = filling();
    for (std::uint64_t k = first; k < st.far_size; k += stride)
      if (const std::uint32_t d = __ldcg(dist + __ldcg(far + k)); d >= st.settled) atomicMin(&w->closest, static_cast<unsigned long long>(d));
    const unsigned long long closest = __ldcg(&filled()->closest);
    if (closest == ~0ull) {  // everything piled was settled since
      st.finished = 1;
      goto hand_back;
    }
    st.threshold = max(st.threshold + delta, (closest / delta + 1) * delta);
    ++st.near_id;
    ++st.far_id;
    w = filling();
    for (std::uint64_t k = first; k < st.far_size; k += stride) {
      const std::uint32_t v = __ldcg(far + k);
      const std::uint32_t d = __ldcg(dist + v);
      if (d < st.settled) continue;  // settled by a near iteration since it was piled
      if (d < st.threshold) {
        if (atomicExch(&near_stamp[v], st.near_id) != st.near_id) append_near(v, near, w, offsets);
      } else if (atomicExch(&far_stamp[v], st.far_id) != st.far_id) {
        kept[atomicAdd(&w->far, 1ull)] = v;
      }
    }
    const counters* r = filled();
    st.near_size = __ldcg(&r->near);
    st.near_scout = __ldcg(&r->near_scout);
    st.near_widest = __ldcg(&r->near_widest);
    st.far_size = __ldcg(&r->far);
    std::uint32_t* t = far;
    far = kept;
    kept = t;
    st.far_swapped ^= 1u;
    ++st.splits;
  }
hand_back:
  if (first == 0) *out = st;
}

__global__ void start(std::uint32_t* dist, std::uint32_t* near, std::uint32_t root) {
  dist[root] = 0;
  near[0] = root;
}

output run(const input& in, run_context& ctx) {
  const std::uint64_t n = in.n(), k = in.roots.size();
  const std::uint64_t delta = delta_of(ctx.params(), 64);
  ctx.note("delta", static_cast<std::int64_t>(delta));
  output o;
  o.dist.resize(k * n);
  const auto l = ctx.launch(level_launch{});
  const auto block = static_cast<unsigned>(l.threads), device_block = static_cast<unsigned>(l.loop_threads);
  auto blocks_for = [block](std::uint64_t threads) { return grid_for(threads, block, 1u << 30); };
  cuda::session gpu(ctx);
  const auto g = upload_graph(gpu, in.g);
  std::uint32_t* dist = gpu.alloc<std::uint32_t>(k * n);
  // A vertex is at most once in a near queue (n) and once in the far pile being built on top of
  // the kept part of the last split (2n).
  std::uint32_t* near[2] = {gpu.alloc<std::uint32_t>(n), gpu.alloc<std::uint32_t>(n)};
  std::uint32_t* far[2] = {gpu.alloc<std::uint32_t>(2 * n), gpu.alloc<std::uint32_t>(2 * n)};
  std::uint32_t* near_stamp = gpu.alloc<std::uint32_t>(n);
  std::uint32_t* far_stamp = gpu.alloc<std::uint32_t>(n);
  counters* c = gpu.alloc<counters>(1);
  frontier_expander expand(gpu, n);
  std::int64_t iterations = 0, splits = 0, round_trips = 0;
  auto read = [&] {
    ++round_trips;
    return gpu.read(c);
  };
  auto reset = [&](unsigned long long far_size) { gpu.write(c, counters{0, far_size, ~0ull, 0, 0}); };
  // The small steps on the device (problems/graph/frontier.cuh): the near queue's edges at most
  // local_edges, the far pile at most 16 times that.
  const device_loop loop(gpu, ctx, near_far_device, device_block, graph_problem::local_edges_of(ctx.params(), "sssp"));
  const std::uint64_t local_edges = loop.local_edges, local_far = 16 * loop.local_edges;
  counters* sets = gpu.alloc<counters>(3);
  loop_state* state = gpu.alloc<loop_state>(1);
  std::int64_t local_runs = 0;
  static const counters fresh_sets[3] = {fresh_counters, fresh_counters, fresh_counters};
  each_root_on_device(
      gpu, ctx, k,
      [&](std::uint64_t r) {
        std::uint32_t* d = dist + r * n;
        gpu.fill_bytes(d, 0xff, n);
        gpu.fill_bytes(near_stamp, 0, n);
        gpu.fill_bytes(far_stamp, 0, n);
        start<<<1, 1, 0, gpu.stream()>>>(d, near[0], in.roots[r]);
        EMA_CUDA_CHECK_LAUNCH();
        std::uint32_t near_id = 1, far_id = 1;
        std::uint64_t near_size = 1, far_size = 0, settled = 0, threshold = delta;
        std::uint64_t near_scout = in.g.degree(in.roots[r]), near_widest = near_scout;  // of the near queue
        bool finished = false;
        // Runs the next steps on the device; false when it took none of them (too large).
        auto on_device = [&] {
          const bool near_small = near_size > 0 && near_scout <= local_edges && near_widest <= device_max_degree;
          const bool split_small = near_size == 0 && far_size > 0 && far_size <= local_far;
          if (local_edges == 0 || !(near_small || split_small)) return false;
          gpu.upload(sets, fresh_sets, 3);
          const std::uint64_t* offsets = g.offsets;
          const std::uint32_t* adj = g.neighbours;
          const std::uint32_t* weight = g.weights;
          loop_state from{near_size, near_scout, near_widest, far_size, settled, threshold, near_id, far_id, 0, 0, 0, 0, 0};
          std::uint64_t step = delta, max_edges = local_edges, max_far = local_far;
          void* args[] = {&offsets, &adj,        &weight,    &d,    &near[0], &near[1],   &far[0],  &far[1],
                          &sets,    &near_stamp, &far_stamp, &from, &step,    &max_edges, &max_far, &state};
          loop.launch(gpu, near_far_device, device_block, args);
          const loop_state st = gpu.read(state);
          ++round_trips;
          ++local_runs;
          near_size = st.near_size;
          near_scout = st.near_scout;
          near_widest = st.near_widest;
          far_size = st.far_size;
          settled = st.settled;
          threshold = st.threshold;
          near_id = st.near_id;
          far_id = st.far_id;
          iterations += st.iterations;
          splits += st.splits;
          finished = st.finished != 0;
          if (st.near_swapped) std::swap(near[0], near[1]);
          if (st.far_swapped) std::swap(far[0], far[1]);
          return true;
        };
        while (!finished) {
          if (on_device()) continue;
          if (near_size > 0) {  // a near iteration from the host
            reset(far_size);
            ++near_id;
            const std::uint64_t* starts = expand.scan(g.offsets, near[0], near_size);
            relax_near<<<expand.expansion_blocks(block), block, 0, gpu.stream()>>>(g.offsets, g.neighbours, g.weights, d, near[0], near_size, starts,
                                                                                   near[1], far[0], c, near_stamp, near_id, far_stamp, far_id,
                                                                                   threshold, local_edges);
            EMA_CUDA_CHECK_LAUNCH();
            const auto h = read();
            near_size = h.near;
            near_scout = h.near_scout;
            near_widest = h.near_widest;
            far_size = h.far;
            std::swap(near[0], near[1]);
            ++iterations;
            continue;
          }
          if (far_size == 0) break;
          // A split from the host. The next threshold: a step of delta, or past the closest vertex of the pile.
          reset(far_size);
          settled = threshold;
          closest_far<<<blocks_for(far_size), block, 0, gpu.stream()>>>(far[0], far_size, d, settled, c);
          EMA_CUDA_CHECK_LAUNCH();
          const auto closest = read().closest;
          if (closest == ~0ull) break;  // everything piled was settled since
          threshold = std::max<std::uint64_t>(threshold + delta, (closest / delta + 1) * delta);
          reset(0);
          ++near_id;
          ++far_id;
          split_far<<<blocks_for(far_size), block, 0, gpu.stream()>>>(g.offsets, far[0], far_size, d, settled, threshold, near[0], far[1], c,
                                                                      near_stamp, near_id, far_stamp, far_id, local_edges);
          EMA_CUDA_CHECK_LAUNCH();
          const auto h = read();
          near_size = h.near;
          near_scout = h.near_scout;
          near_widest = h.near_widest;
          far_size = h.far;
          std::swap(far[0], far[1]);
          ++splits;
        }
      },
      [&] { gpu.download(o.dist.data(), dist, k * n); });
  ctx.note("iterations", iterations);
  ctx.note("splits", splits);
  ctx.note("round_trips", round_trips);
  ctx.note("local_runs", local_runs);
  return o;
}

}  // namespace
}  // namespace ema::sssp

EMA_VARIANT(
    sssp_cuda,
    ema::sssp::kit::variant<&ema::sssp::run>({
        .name = "cuda",
        .backend = ema::backend::cuda,
        .role = ema::variant_role::ours,
        .description = "ours: near-far worklists on the GPU (load-balanced edge expansion, atomicMin, deduplicated queues, delta 64 unless set)",
        .provenance = "Davidson, Baxter, Garland, Owens, IPDPS 2014",
        .launch = ema::level_launch::fields,
        .tuning = ema::sssp::cuda_tuning,
    }));
