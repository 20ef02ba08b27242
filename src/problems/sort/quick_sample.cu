// sort / quick-sample — ours, the fastest GPU quicksort we can make: a sample sort, that is a
// quicksort with B - 1 pivots at once instead of one, so one partition leaves parts a block can sort.
// - B = n / 2048 parts; 32 B keys are drawn at pseudo-random positions and sorted
//   (cub::DeviceRadixSort), and every 32nd is a pivot (a splitter);
// - the splitters are laid out as a perfect binary search tree in breadth-first order (Eytzinger,
//   padded with the largest splitter), whose top 12 levels every block copies into shared memory:
//   a key's part costs 12 shared and about 5 global loads instead of 17 dependent global loads;
//   a key equal to a splitter goes to that splitter's own "equal" part, already in order, so
//   repeated keys (equal, few, zipf) never make a part grow: 2B - 1 parts, alternately between and
//   equal to the splitters;
// - one pass finds every key's part once, stores it (4 bytes a key) and counts the parts (atomic
//   adds, one per group of a warp's keys in the same part); a scan (cub::DeviceScan) gives where
//   each part starts; a second pass reads the stored parts and scatters the keys there, into a
//   second buffer;
// - a block sorts each part between splitters in place (cub::BlockRadixSort, ≤ 4096 keys); with
//   32-fold oversampling a part holds 2048 keys on average and rarely more than 4096; one that does
//   is sorted by its block with the bottom-up mergesort of tiles.cuh (counted: the note `fallbacks`).
// Traffic: two reads of the keys, the parts written and read, one scattered write, one read and
// write per part: about five passes over the keys, against 2 log2(n) for the source's quicksorts.
// Each step is timed as a part of the kernel phase: `sample`, `classify`, `scatter`, `blocks`.
#include <algorithm>
#include <array>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "core/registry.hpp"
#include "inputs/random.hpp"
#include "problems/sort/tiles.cuh"

namespace ema::sort {
namespace {

constexpr std::size_t part_keys = 2048;  ///< expected keys in a part between splitters
constexpr std::size_t oversample = 32;

using count_t = unsigned long long;

template <class K>
__global__ void gather_sample(const K* keys, std::size_t n, K* sample, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    sample[i] = keys[random_at(0x5a3b1e, i) % n];
}

template <class K>
__global__ void pick_splitters(const K* sorted_sample, K* splitters, std::size_t count) {
  for (std::size_t j = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    splitters[j] = sorted_sample[(j + 1) * oversample];
}

/// Levels of the splitter tree a block keeps in shared memory (4095 nodes).
constexpr int shared_levels = 12;

/// The splitters s[0, m) as a perfect search tree of `height` levels in breadth-first order:
/// node k (1-based) holds the splitter of in-order rank (2 (k - 2^d) + 1) 2^(height-1-d) - 1 at
/// depth d, ranks past m - 1 the largest splitter again.
template <class K>
__global__ void build_tree(const K* s, std::size_t m, K* tree, int height) {
  const std::size_t nodes = (std::size_t{1} << height) - 1;
  for (std::size_t k = 1 + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k <= nodes;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int d = 63 - __clzll(static_cast<long long>(k));
    const std::size_t rank = (2 * (k - (std::size_t{1} << d)) + 1) * (std::size_t{1} << (height - 1 - d)) - 1;
    tree[k] = s[rank < m ? rank : m - 1];
  }
}

/// The part of `key` among 2m + 1: 2i for keys between splitters i - 1 and i, 2i + 1 for keys equal
/// to splitter i (the last of equal splitters). `top` holds the tree's first nodes (shared).
template <class K>
__device__ __forceinline__ count_t part_of(K key, const K* top, const K* __restrict__ tree, int height, count_t m) {
  if (m == 0) return 0;
  std::size_t k = 1;
  K pred{};
  bool right = false;
  const int from_shared = height < shared_levels ? height : shared_levels;
  for (int level = 0; level < from_shared; ++level) {
    const K t = top[k];
    const bool go = !(key < t);  // t <= key: the key's rank is past this splitter
    if (go) pred = t, right = true;
    k = 2 * k + go;
  }
  for (int level = from_shared; level < height; ++level) {
    const K t = tree[k];
    const bool go = !(key < t);
    if (go) pred = t, right = true;
    k = 2 * k + go;
  }
  count_t ub = static_cast<count_t>(k - (std::size_t{1} << height));  // splitters not greater than the key
  if (ub > m) ub = m;
  return ub > 0 && right && !(pred < key) ? 2 * ub - 1 : 2 * ub;
}

/// Copies the tree's top levels into shared memory (all threads of the block).
template <class K>
__device__ void load_top(const K* tree, int height, K* top) {
  const int levels = height < shared_levels ? height : shared_levels;
  for (int k = 1 + static_cast<int>(threadIdx.x); k < (1 << levels); k += static_cast<int>(blockDim.x)) top[k] = tree[k];
  __syncthreads();
}

template <class K>
__global__ void classify_and_count(const K* __restrict__ keys, std::size_t n, const K* __restrict__ tree, int height, count_t m,
                                   std::uint32_t* __restrict__ parts, count_t* counts) {
  __shared__ K top[1 << shared_levels];
  load_top(tree, height, top);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t base = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x - threadIdx.x % 32; base < n; base += stride) {
    const std::size_t i = base + threadIdx.x % 32;
    const bool active = i < n;
    const count_t part = active ? part_of(keys[i], top, tree, height, m) : 0;
    if (active) parts[i] = static_cast<std::uint32_t>(part);
    take_room(&counts[part], part, active);
  }
}

template <class K>
__global__ void scatter_parts(const K* __restrict__ from, std::size_t n, const std::uint32_t* __restrict__ parts, count_t* cursor,
                              K* __restrict__ to) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t base = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x - threadIdx.x % 32; base < n; base += stride) {
    const std::size_t i = base + threadIdx.x % 32;
    const bool active = i < n;
    const count_t part = active ? parts[i] : 0;
    const count_t at = take_room(&cursor[part], part, active);
    if (active) to[at] = from[i];
  }
}

/// Block b sorts part 2b (between splitters) of the keys in place; the equal parts are in order.
template <class K>
__global__ void __launch_bounds__(tiles::threads) sort_parts(K* keys, K* scratch, const count_t* offsets, count_t between, unsigned* fallbacks) {
  __shared__ tiles::block_storage<K> s;
  for (count_t b = blockIdx.x; b < between; b += gridDim.x) {
    const count_t lo = offsets[2 * b], len = offsets[2 * b + 1] - lo;
    if (len <= 1) continue;
    if (len <= static_cast<count_t>(tiles::tile_keys)) {
      tiles::block_sort(keys + lo, keys + lo, static_cast<int>(len), s.sort);
    } else {
      if (threadIdx.x == 0) atomicAdd(fallbacks, 1u);
      tiles::block_merge_sort(keys + lo, scratch + lo, keys + lo, len, s);
    }
    __syncthreads();
  }
}

/// The launch settings (core/launch.hpp) of the kernels around the part sorts (those take
/// tiles::threads, the tiles' shape).
struct sample_launch {
  int threads = 256, classify_blocks_per_sm = 8;
  static constexpr launch_field fields[] = {
      {"threads", "threads per block of the sample, splitter, classify and scatter kernels (ema: 256)", 32, 1024, 32},
      {"classify_blocks_per_sm",
       "blocks per multiprocessor of the classify kernel, each copying the splitter tree's top into shared memory first (ema: 8)", 1, 64}};
  std::array<int*, 2> members() { return {&threads, &classify_blocks_per_sm}; }
};

template <class K>
struct sample_sort {
  static output run(const input& in, run_context& ctx) {
    const std::size_t between = std::max<std::size_t>(1, ceil_div(in.n, part_keys));  // B
    const std::size_t m = between - 1, parts = 2 * between - 1, sample = between * oversample;
    // The splitter tree's height: the least with 2^height - 1 >= m nodes (0 for no splitter).
    int height = 0;
    while (((std::size_t{1} << height) - 1) < m) ++height;
    unsigned* fallbacks = nullptr;
    const auto l = ctx.launch(sample_launch{});
    const auto threads = static_cast<unsigned>(l.threads);
    int sms = 0;
    EMA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    auto o = run_on_device<K>(
        in, ctx,
        [&](cuda::session& gpu, device_keys<K>& d) {
          K* parted = gpu.alloc<K>(d.n);  // the keys scattered into their parts, then sorted there
          K* drawn = gpu.alloc<K>(sample);
          K* sorted = gpu.alloc<K>(sample);
          K* splitters = gpu.alloc<K>(std::max<std::size_t>(m, 1));
          K* tree = gpu.alloc<K>(std::size_t{1} << height);
          std::uint32_t* part_ids = gpu.alloc<std::uint32_t>(d.n);
          count_t* counts = gpu.alloc<count_t>(parts + 1);
          count_t* offsets = gpu.alloc<count_t>(parts + 1);
          count_t* cursor = gpu.alloc<count_t>(parts + 1);
          fallbacks = gpu.alloc<unsigned>(1);
          std::size_t radix_bytes = 0, scan_bytes = 0;
          EMA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, radix_bytes, drawn, sorted, sample));
          EMA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, offsets, parts + 1));
          const std::size_t temp_bytes = std::max(radix_bytes, scan_bytes);
          void* temp = gpu.alloc<char>(temp_bytes);
          return [&, parted, drawn, sorted, splitters, tree, part_ids, counts, offsets, cursor, temp, temp_bytes]() -> const K* {
            gpu.fill_bytes(fallbacks, 0, 1);
            if (d.n <= 1) return d.keys;
            const cudaStream_t st = gpu.stream();
            const unsigned grid = grid_for(d.n, threads, 65535);
            {
              auto part = gpu.kernel_part("sample");
              gather_sample<K><<<grid_for(sample, threads, 65535), threads, 0, st>>>(d.keys, d.n, drawn, sample);
              EMA_CUDA_CHECK_LAUNCH();
              std::size_t bytes = temp_bytes;
              EMA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, bytes, drawn, sorted, sample, 0, static_cast<int>(8 * sizeof(K)), st));
              if (m) {
                pick_splitters<K><<<grid_for(m, threads, 65535), threads, 0, st>>>(sorted, splitters, m);
                EMA_CUDA_CHECK_LAUNCH();
                const std::size_t nodes = (std::size_t{1} << height) - 1;
                build_tree<K><<<grid_for(nodes, threads, 65535), threads, 0, st>>>(splitters, m, tree, height);
                EMA_CUDA_CHECK_LAUNCH();
              }
            }
            {
              auto part = gpu.kernel_part("classify");
              gpu.fill_bytes(counts, 0, parts + 1);
              // Every block first copies the tree's top into shared memory: a few blocks per
              // multiprocessor, each looping over many keys, rather than a block per 256 keys.
              classify_and_count<K><<<std::min(grid, static_cast<unsigned>(l.classify_blocks_per_sm * sms)), threads, 0, st>>>(
                  d.keys, d.n, tree, height, m, part_ids, counts);
              EMA_CUDA_CHECK_LAUNCH();
            }
            {
              auto part = gpu.kernel_part("scatter");
              std::size_t bytes = temp_bytes;
              EMA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, counts, offsets, parts + 1, st));
              EMA_CUDA_CHECK(cudaMemcpyAsync(cursor, offsets, (parts + 1) * sizeof(count_t), cudaMemcpyDeviceToDevice, st));
              scatter_parts<K><<<grid, threads, 0, st>>>(d.keys, d.n, part_ids, cursor, parted);
              EMA_CUDA_CHECK_LAUNCH();
            }
            {
              auto part = gpu.kernel_part("blocks");
              sort_parts<K><<<static_cast<unsigned>(std::min<std::size_t>(between, 1u << 20)), tiles::threads, 0, st>>>(parted, d.keys, offsets,
                                                                                                                        between, fallbacks);
              EMA_CUDA_CHECK_LAUNCH();
            }
            return parted;
          };
        },
        [&](cuda::session& gpu) { ctx.note("fallbacks", static_cast<std::int64_t>(gpu.read(fallbacks))); });
    ctx.note("parts", static_cast<std::int64_t>(between));
    return o;
  }
};

output run(const input& in, run_context& ctx) { return run_typed<sample_sort>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_quick_sample,
            ema::sort::kit::variant<&ema::sort::run>({
                .name = "quick-sample",
                .algorithm = "quick",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::ours,
                .description = "ours: sample sort, n/2048 splitters from a sorted sample, keys equal to a splitter set apart, a block per part",
                .provenance = "ours (a quicksort with many pivots at once)",
                .launch = ema::sort::sample_launch::fields,
            }));
