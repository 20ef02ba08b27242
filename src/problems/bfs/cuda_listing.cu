// bfs / cuda-listing — Algorithm 7 of Nogueira, 004_96c7929830a11cf7.txt (BFS in CUDA), as written: the
// frontier as a queue (`d_fila_atual`), a thread per queued vertex u scanning u's adjacency; a
// neighbour v still at INT_MAX whose distance the thread lowers to nivel + 1 goes to the next queue
// at a position taken from the counter `nextQueueSize`; then the host synchronises, reads the
// counter back, clears it, swaps the queues and goes on while the queue is not empty.
// How the listing was read:
// - line 7, `d_distance[v] == INT_MAX and d_distancia = mínimo entre (d_distance[v], nivel + 1) ==
//   INT_MAX`: an atomicMin on v's distance whose old value was INT_MAX, so exactly one thread
//   queues v (the first test only skips the atomic for vertices already reached);
// - line 8, `position = pextQueueSize++`: an atomicAdd on the counter;
// - lines 13-19: the host waits (cudaDeviceSynchronize; here the session's stream), reads the
//   counter, which is the next level's queue size, and clears it.
// Depths only (no parents). Per root: the distances set to unreached and the root's to 0 on the
// device, then the host loop. Notes: `levels` (kernel launches) and `round_trips` (counter reads),
// summed over the roots.
#include <array>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/graph/device_graph.cuh"
#include "problems/bfs/bfs.hpp"

namespace ema::bfs {
namespace {

/// The listing's one free choice, threads per block (core/launch.hpp); the blocks follow from the
/// queue's size.
struct listing_launch {
  int threads = 256;
  static constexpr launch_field fields[] = {
      {"threads", "threads per block, a thread per queued vertex (ema: 256; the listing leaves it open)", 32, 1024, 32}};
  std::array<int*, 1> members() { return {&threads}; }
};

__global__ void expand(const std::uint64_t* __restrict__ offsets, const std::uint32_t* __restrict__ adj, std::uint32_t* distance,
                       const std::uint32_t* __restrict__ queue, std::uint32_t queue_size, std::uint32_t* next_queue, std::uint32_t* next_queue_size,
                       std::uint32_t nivel) {
  const std::uint64_t thid = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thid >= queue_size) return;
  const std::uint32_t u = queue[thid];
  for (std::uint64_t i = offsets[u]; i < offsets[u + 1]; ++i) {
    const std::uint32_t v = adj[i];
    if (distance[v] == unreached && atomicMin(&distance[v], nivel + 1) == unreached) {
      const std::uint32_t position = atomicAdd(next_queue_size, 1u);
      next_queue[position] = v;
    }
  }
}

__global__ void start(std::uint32_t* distance, std::uint32_t* queue, std::uint32_t root) {
  distance[root] = 0;
  queue[0] = root;
}

output run(const input& in, run_context& ctx) {
  const std::uint64_t n = in.n(), k = in.roots.size();
  if (n > 0xfffffffeull) throw usage_error("bfs cuda-listing: at most 2^32 - 2 vertices");
  output o;
  o.depth.resize(k * n);
  const auto block = static_cast<unsigned>(ctx.launch(listing_launch{}).threads);
  cuda::session gpu(ctx);
  const auto g = upload_graph(gpu, in.g);
  std::uint32_t* distance = gpu.alloc<std::uint32_t>(k * n);
  std::uint32_t* queues[2] = {gpu.alloc<std::uint32_t>(n), gpu.alloc<std::uint32_t>(n)};
  std::uint32_t* next_size = gpu.alloc<std::uint32_t>(1);
  std::int64_t levels = 0, round_trips = 0;
  each_root_on_device(
      gpu, ctx, k,
      [&](std::uint64_t r) {
        std::uint32_t* d = distance + r * n;
        gpu.fill_bytes(d, 0xff, n);
        start<<<1, 1, 0, gpu.stream()>>>(d, queues[0], in.roots[r]);
        EMA_CUDA_CHECK_LAUNCH();
        gpu.fill_bytes(next_size, 0, 1);
        std::uint32_t queue_size = 1;
        for (std::uint32_t nivel = 0; queue_size != 0; ++nivel) {
          expand<<<grid_for(queue_size, block), block, 0, gpu.stream()>>>(g.offsets, g.neighbours, d, queues[0], queue_size, queues[1], next_size,
                                                                          nivel);
          EMA_CUDA_CHECK_LAUNCH();
          queue_size = gpu.read(next_size);
          gpu.fill_bytes(next_size, 0, 1);
          std::swap(queues[0], queues[1]);
          ++levels;
          ++round_trips;
        }
      },
      [&] { gpu.download(o.depth.data(), distance, k * n); });
  ctx.note("levels", levels);
  ctx.note("round_trips", round_trips);
  return o;
}

}  // namespace
}  // namespace ema::bfs

EMA_VARIANT(bfs_cuda_listing,
            ema::bfs::kit::variant<&ema::bfs::run>({
                .name = "cuda-listing",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::source,
                .description = "Algorithm 7 as written: a queue, atomicMin claims, an atomic counter for the next queue, a host loop per level",
                .provenance = "Algorithm 7 of 004_96c7929830a11cf7.txt",
                .launch = ema::bfs::listing_launch::fields,
                .not_applicable = &ema::bfs::too_many_vertices,
            }));
