// sssp / cuda — ours: near-far worklist SSSP on the GPU (Davidson, Baxter, Garland and Owens,
// "Work-efficient parallel GPU methods for single-source shortest paths", IPDPS 2014; a two-bucket
// delta-stepping):
// - the near queue holds vertices whose distance is below the threshold; its edges are relaxed one
//   per thread whatever the degrees (inputs/frontier.cuh, atomicMin on the distance); a vertex
//   improved below the threshold goes to the next near queue, one improved at or past it to the
//   far pile; a stamp per vertex and queue keeps a vertex at most once in each;
// - when the near queue is empty, the threshold moves past the smallest distance in the far pile
//   (a step of Δ, or further where the pile holds nothing closer), and the far pile is split:
//   vertices settled since (their distance now below the old threshold) dropped, those below the
//   new threshold to the near queue, the rest kept (each once);
// - Δ: the parameter `delta`, 64 by default (note `delta`). The host reads one count per near
//   iteration and two per split. Notes `iterations`, `splits`, `round_trips`, summed over the roots.
#include <algorithm>

#include "core/registry.hpp"
#include "inputs/device_graph.cuh"
#include "inputs/frontier.cuh"
#include "problems/sssp/sssp.hpp"

namespace ema::sssp {
namespace {

constexpr unsigned block = 256;

struct counters {
  unsigned long long near;     ///< vertices in the queue being built
  unsigned long long far;      ///< vertices in the far pile being built
  unsigned long long closest;  ///< the least distance in the far pile (a split's first pass)
};

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

__global__ void __launch_bounds__(block) relax_near(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ adj,
                                                    const std::uint32_t* __restrict__ weight, std::uint32_t* dist,
                                                    const std::uint32_t* __restrict__ near, std::uint64_t near_size,
                                                    const std::uint64_t* __restrict__ starts, std::uint32_t* next_near, std::uint32_t* far,
                                                    counters* c, std::uint32_t* near_stamp, std::uint32_t near_id, std::uint32_t* far_stamp,
                                                    std::uint32_t far_id, std::uint64_t threshold) {
  for_each_frontier_edge(offsets, near, near_size, starts, [&](bool active, std::uint32_t u, std::uint64_t i) {
    bool to_near = false, to_far = false;
    std::uint32_t v = 0;
    if (active) {
      v = adj[i];
      const std::uint32_t through = dist[u] + weight[i];
      if (through < dist[v] && atomicMin(&dist[v], through) > through) {
        if (through < threshold) to_near = atomicExch(&near_stamp[v], near_id) != near_id;
        else to_far = atomicExch(&far_stamp[v], far_id) != far_id;
      }
    }
    push(v, to_near, next_near, &c->near);
    push(v, to_far, far, &c->far);
  });
}

__global__ void closest_far(const std::uint32_t* __restrict__ far, std::uint64_t size, const std::uint32_t* __restrict__ dist,
                            std::uint64_t settled, counters* c) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < size)
    if (const std::uint32_t d = dist[far[k]]; d >= settled) atomicMin(&c->closest, static_cast<unsigned long long>(d));
}

__global__ void split_far(const std::uint32_t* __restrict__ far, std::uint64_t size, const std::uint32_t* __restrict__ dist,
                          std::uint64_t settled, std::uint64_t threshold, std::uint32_t* near, std::uint32_t* kept, counters* c,
                          std::uint32_t* near_stamp, std::uint32_t near_id, std::uint32_t* far_stamp, std::uint32_t far_id) {
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  bool to_near = false, to_far = false;
  std::uint32_t v = 0;
  if (k < size) {
    v = far[k];
    const std::uint32_t d = dist[v];
    if (d >= settled) {  // else settled by a near iteration since it was piled
      if (d < threshold) to_near = atomicExch(&near_stamp[v], near_id) != near_id;
      else to_far = atomicExch(&far_stamp[v], far_id) != far_id;
    }
  }
  push(v, to_near, near, &c->near);
  push(v, to_far, kept, &c->far);
}

__global__ void start(std::uint32_t* dist, std::uint32_t* near, std::uint32_t root) {
  dist[root] = 0;
  near[0] = root;
}

unsigned blocks_for(std::uint64_t threads) { return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>((threads + block - 1) / block, 1u << 30))); }

output run(const input& in, run_context& ctx) {
  const std::uint64_t n = in.n(), k = in.roots.size();
  const std::uint64_t delta = delta_of(ctx.params(), 64);
  ctx.note("delta", static_cast<std::int64_t>(delta));
  output o;
  o.dist.resize(k * n);
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
    counters h{};
    EMA_CUDA_CHECK(cudaMemcpyAsync(&h, c, sizeof h, cudaMemcpyDeviceToHost, gpu.stream()));
    gpu.wait();
    ++round_trips;
    return h;
  };
  auto reset = [&](unsigned long long far_size) {
    const counters h{0, far_size, ~0ull};
    EMA_CUDA_CHECK(cudaMemcpyAsync(c, &h, sizeof h, cudaMemcpyHostToDevice, gpu.stream()));
  };
  root_timer timer(gpu);
  {
    auto kernel = gpu.phase("kernel");
    for (std::uint64_t r = 0; r < k; ++r) {
      timer.start();
      std::uint32_t* d = dist + r * n;
      gpu.fill_bytes(d, 0xff, n);
      gpu.fill_bytes(near_stamp, 0, n);
      gpu.fill_bytes(far_stamp, 0, n);
      start<<<1, 1, 0, gpu.stream()>>>(d, near[0], in.roots[r]);
      EMA_CUDA_CHECK_LAUNCH();
      std::uint32_t near_id = 1, far_id = 1;
      std::uint64_t near_size = 1, far_size = 0, settled = 0, threshold = delta;
      for (;;) {
        while (near_size > 0) {
          reset(far_size);
          ++near_id;
          const std::uint64_t* starts = expand.scan(g.offsets, near[0], near_size);
          relax_near<<<expand.expansion_blocks(block), block, 0, gpu.stream()>>>(g.offsets, g.neighbours, g.weights, d, near[0], near_size,
                                                                                 starts, near[1], far[0], c, near_stamp, near_id, far_stamp,
                                                                                 far_id, threshold);
          EMA_CUDA_CHECK_LAUNCH();
          const auto h = read();
          near_size = h.near;
          far_size = h.far;
          std::swap(near[0], near[1]);
          ++iterations;
        }
        if (far_size == 0) break;
        // The next threshold: a step of delta, or past the closest vertex of the pile.
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
        split_far<<<blocks_for(far_size), block, 0, gpu.stream()>>>(far[0], far_size, d, settled, threshold, near[0], far[1], c, near_stamp,
                                                                    near_id, far_stamp, far_id);
        EMA_CUDA_CHECK_LAUNCH();
        const auto h = read();
        near_size = h.near;
        far_size = h.far;
        std::swap(far[0], far[1]);
        ++splits;
      }
      timer.stop();
    }
  }
  {
    auto d2h = gpu.phase("d2h");
    gpu.download(o.dist.data(), dist, k * n);
  }
  gpu.finish();
  timer.note(ctx);
  ctx.note("iterations", iterations);
  ctx.note("splits", splits);
  ctx.note("round_trips", round_trips);
  return o;
}

}  // namespace
}  // namespace ema::sssp

EMA_VARIANT(sssp_cuda, ema::sssp::kit::variant<&ema::sssp::run>({
    .name = "cuda",
    .backend = ema::backend::cuda,
    .role = ema::variant_role::ours,
    .description = "ours: near-far worklists on the GPU (load-balanced edge expansion, atomicMin, deduplicated queues, delta 64 unless set)",
    .provenance = "Davidson, Baxter, Garland, Owens, IPDPS 2014",
    .tuning = ema::sssp::delta_tuning,
}));
