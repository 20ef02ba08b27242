// sort / merge-cuda — Algorithm 5 of Nogueira, 004_96c7929830a11cf7.txt (Mergesort CUDA), as written:
// bottom-up, a host loop doubling the width (largura = 2, 4, ... while largura < 2 size); at each
// width every thread of one launch takes `cortes = size / (nThreads * largura) + 1` consecutive runs
// and merges each pair of halves [inicio, meio) and [meio, fim) from the source into the
// destination, one key at a time; the two arrays then swap roles. The source's own words: threads in
// two dimensions (here blocks of 32 x 8 threads in a grid of 32 x 32 blocks, launch.* to change)
// and unified memory: both arrays are managed (cudaMallocManaged), the keys copied in on the host's
// side and paged over by the first kernel; a run that would not fit in the device's free memory is
// refused (recorded as oom) rather than oversubscribed.
// How the listing was read: line 1's garbled `for largura = 2 to largura ; (size << 1); largura
// <= 1` is the loop above; `inicio = largura * idx *` (cut off) is largura · idx · cortes, the first
// run of thread idx; `Insertion_Sort(source, dest, inicio, meio, fim)` is the merge of the two
// sorted halves (the text: "each thread sorts the positions within its subset"), stable.
// Where it degrades: at width w only size / w threads have work, so the last passes run on a handful
// of threads: the last one merges all n keys on one thread (Θ(n) steps on one core).
#include <array>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/sort/device.cuh"

namespace ema::sort {
namespace {

struct merge_launch {
  int block_x = 32, block_y = 8, grid_x = 32, grid_y = 32;
  static constexpr launch_field fields[] = {
      {"block_x", "threads per block along x", 1, 1024},
      {"block_y", "threads per block along y", 1, 1024},
      {"grid_x", "blocks along x", 1, 1 << 30},
      {"grid_y", "blocks along y", 1, 65535},
  };
  std::array<int*, 4> members() { return {&block_x, &block_y, &grid_x, &grid_y}; }
};

/// Why the settings cannot launch: more threads a block than CUDA allows (variant_desc::launch_refuses).
std::string launch_refuses(const param_set& params, std::uint64_t) {
  const auto l = with_overrides(merge_launch{}, params);
  return l.block_x * l.block_y > 1024 ? "launch.block_x * launch.block_y = " + std::to_string(l.block_x) + " x " + std::to_string(l.block_y) +
                                            " threads a block; CUDA allows at most 1024"
                                      : std::string();
}

/// Insertion_Sort(source, dest, inicio, meio, fim): the merge of source[inicio, meio) and
/// source[meio, fim) into dest[inicio, fim), the left key first on a tie.
template <class K>
__device__ void merge_halves(const K* source, K* dest, std::size_t inicio, std::size_t meio, std::size_t fim) {
  std::size_t i = inicio, j = meio;
  for (std::size_t k = inicio; k < fim; ++k) {
    if (i < meio && (j >= fim || !(source[j] < source[i])))
      dest[k] = source[i++];
    else
      dest[k] = source[j++];
  }
}

template <class K>
__global__ void merge_width(const K* source, K* dest, std::size_t size, std::size_t largura, std::size_t cortes) {
  const std::size_t block = static_cast<std::size_t>(blockIdx.y) * gridDim.x + blockIdx.x;
  const std::size_t idx = block * (static_cast<std::size_t>(blockDim.x) * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x;
  std::size_t inicio = largura * idx * cortes;
  for (std::size_t i = 0; i < cortes; ++i) {
    if (inicio >= size) break;
    const std::size_t meio = inicio + largura / 2 < size ? inicio + largura / 2 : size;
    const std::size_t fim = inicio + largura < size ? inicio + largura : size;
    merge_halves(source, dest, inicio, meio, fim);
    inicio += largura;
  }
}

template <class K>
struct algorithm_5 {
  static output run(const input& in, run_context& ctx) {
    if (const auto why = launch_refuses(ctx.params(), ctx.n()); !why.empty()) throw usage_error("merge-cuda: " + why);
    auto l = ctx.launch(merge_launch{});
    const dim3 threads(static_cast<unsigned>(l.block_x), static_cast<unsigned>(l.block_y));
    const dim3 blocks(static_cast<unsigned>(l.grid_x), static_cast<unsigned>(l.grid_y));
    const std::size_t n_threads = static_cast<std::size_t>(l.block_x) * l.block_y * l.grid_x * l.grid_y;
    int passes = 0;
    auto o = run_on_device<K, memory::managed>(in, ctx, [&](cuda::session& gpu, device_keys<K>& d) {
      K* dest = gpu.alloc_managed<K>(d.n);
      return [&, dest]() -> const K* {
        K* to = dest;
        K* from = d.keys;
        for (std::size_t largura = 2; largura < (d.n << 1); largura <<= 1) {
          const std::size_t cortes = d.n / (n_threads * largura) + 1;
          merge_width<K><<<blocks, threads, 0, gpu.stream()>>>(from, to, d.n, largura, cortes);
          EMA_CUDA_CHECK_LAUNCH();
          std::swap(from, to);
          ++passes;
        }
        return from;
      };
    });
    ctx.note("passes", passes);
    ctx.note("threads", static_cast<std::int64_t>(n_threads));
    return o;
  }
};

output run(const input& in, run_context& ctx) { return run_typed<algorithm_5>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_merge_cuda,
            ema::sort::kit::variant<&ema::sort::run>({
                .name = "merge-cuda",
                .algorithm = "merge",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::source,
                .description = "Algorithm 5: bottom-up mergesort, the width doubled on the host, each thread merging its runs, unified memory",
                .provenance = "Algorithm 5 of 004_96c7929830a11cf7.txt",
                .launch = ema::sort::merge_launch::fields,
                .launch_refuses = &ema::sort::launch_refuses,
            }));
