// sssp / cuda-listing — Algorithm 1 of Nogueira, 004_96c7929830a11cf7.txt (SSSP in CUDA), as written: a host
// loop launches the relaxation kernel until a launch changes nothing (`finished`); in the kernel
// thread t relaxes the edges [t · numEdges, (t + 1) · numEdges) of the edge list (numEdges: edges
// per thread), each `if dist[Origem] + Custo < dist[Destino]` lowering the destination and
// clearing `finished`.
// How the listing was read:
// - line 9's comparison is garbled ("dist[Origem] + Custo | dist[Destino]"): read as <, the
//   relaxation the text describes;
// - the unguarded update races between threads relaxing one vertex (a longer distance may
//   overwrite a shorter one): read as atomicMin, so a distance only falls; `finished = false` is
//   a plain store of one value by any thread (benign);
// - an origin not yet reached relaxes nothing (INT_MAX + Custo would wrap);
// - `preNode` (the predecessor) is not kept; the verifier needs distances only.
// Edges per thread: 4 (the listing leaves it open; launch.edges_per_thread), 256 threads a block
// (launch.threads). Notes: `rounds` (kernel
// launches) and `round_trips` (reads of `finished`), summed over the roots.
#include <array>

#include "core/registry.hpp"
#include "problems/graph/device_graph.cuh"
#include "problems/sssp/sssp.hpp"

namespace ema::sssp {
namespace {

/// The listing's free choices (core/launch.hpp): threads per block and numEdges, the edges a
/// thread relaxes; the blocks follow from the edges.
struct listing_launch {
  int threads = 256, edges_per_thread = 4;
  static constexpr launch_field fields[] = {
      {"threads", "threads per block (ema: 256; the listing leaves it open)", 32, 1024, 32},
      {"edges_per_thread", "numEdges, the consecutive edges of the list a thread relaxes (ema: 4; the listing leaves it open)", 1, 1 << 20}};
  std::array<int*, 2> members() { return {&threads, &edges_per_thread}; }
};

__global__ void relax(const std::uint32_t* __restrict__ origem, const std::uint32_t* __restrict__ destino, const std::uint32_t* __restrict__ custo,
                      std::uint64_t m, std::uint64_t edges_per_thread, std::uint32_t* dist, int* finished) {
  const std::uint64_t thread_id = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t start_id = thread_id * edges_per_thread;
  const std::uint64_t end_id = start_id + edges_per_thread < m ? start_id + edges_per_thread : m;
  for (std::uint64_t i = start_id; i < end_id; ++i) {
    const std::uint32_t from = dist[origem[i]];
    if (from == unreached) continue;
    const std::uint32_t through = from + custo[i];
    if (through < dist[destino[i]] && atomicMin(&dist[destino[i]], through) > through) *finished = 0;
  }
}

__global__ void start(std::uint32_t* dist, std::uint32_t root) { dist[root] = 0; }

output run(const input& in, run_context& ctx) {
  const std::uint64_t n = in.n(), k = in.roots.size();
  output o;
  o.dist.resize(k * n);
  cuda::session gpu(ctx);
  const auto g = upload_graph(gpu, in.g, &in.edge_origin);
  std::uint32_t* dist = gpu.alloc<std::uint32_t>(k * n);
  int* finished = gpu.alloc<int>(1);
  std::int64_t rounds = 0, round_trips = 0;
  const auto l = ctx.launch(listing_launch{});
  const auto block = static_cast<unsigned>(l.threads);
  const auto edges_per_thread = static_cast<std::uint64_t>(l.edges_per_thread);
  const auto blocks = grid_for(ceil_div(g.m, edges_per_thread), block);
  each_root_on_device(
      gpu, ctx, k,
      [&](std::uint64_t r) {
        std::uint32_t* d = dist + r * n;
        gpu.fill_bytes(d, 0xff, n);
        start<<<1, 1, 0, gpu.stream()>>>(d, in.roots[r]);
        EMA_CUDA_CHECK_LAUNCH();
        for (int host_finished = 0; !host_finished;) {
          gpu.write(finished, 1);
          relax<<<blocks, block, 0, gpu.stream()>>>(g.origin, g.neighbours, g.weights, g.m, edges_per_thread, d, finished);
          EMA_CUDA_CHECK_LAUNCH();
          host_finished = gpu.read(finished);
          ++rounds;
          ++round_trips;
        }
      },
      [&] { gpu.download(o.dist.data(), dist, k * n); });
  ctx.note("rounds", rounds);
  ctx.note("round_trips", round_trips);
  return o;
}

}  // namespace
}  // namespace ema::sssp

EMA_VARIANT(sssp_cuda_listing,
            ema::sssp::kit::variant<&ema::sssp::run, &ema::sssp::with_edge_origin>({
                .name = "cuda-listing",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::source,
                .description = "Algorithm 1 as written: edge-parallel relaxation (4 edges a thread, atomicMin), a host loop until finished",
                .provenance = "Algorithm 1 of 004_96c7929830a11cf7.txt",
                .launch = ema::sssp::listing_launch::fields,
            }));
