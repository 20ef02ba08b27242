// sort / quick-cdp — the recursive quicksort of the study's CUDA-DP environment
// (Nogueira, 004_96c7929830a11cf7.txt: the study compares OpenMP, CUDA and CUDA-DP; the appendix lists the
// OpenMP recursion, Algorithm 4, and the host-loop CUDA form, Algorithm 3, but no CUDA-DP listing).
// Designed here after Algorithm 4, top-down, under CUDA 12's rules (CDP2, cdp.cuh):
// - a node is a grid on the segment [lo, hi), its keys in one of two arrays (the keys or a buffer).
//   The pivot is the key at the middle position, as in Algorithms 3 and 4. Every block reads 4096
//   keys at a time, counts those less than, equal to and greater than the pivot, takes room for
//   them with one atomic add per class on the node's counters, and writes them: the lesser from
//   lo upwards and the greater from hi downwards in the other array, the equal ones into a side
//   array (Algorithm 3's pivot_arr, which keeps the keys equal to the pivot apart);
// - the last block to finish (a ticket counter) knows the three counts: it copies the equal keys to
//   their final place [lo + less, hi - greater) of the keys and launches the lesser and greater
//   parts as fire-and-forget children (Algorithm 4's two `omp task`s). Where more than 2^16 keys
//   equal the pivot, a grid copies them and the children are launched from a tail launch, once
//   the copy is done, since the side array's room is reused by the children;
// - the cutoff: a segment of at most 2^15 keys is a leaf, sorted by one block into the keys (up to
//   4096 keys by cub::BlockRadixSort, more by the block's bottom-up mergesort of such tiles); a grid
//   of segment / 4096 blocks (at most launch.max_blocks) partitions the others. (A cutoff of 4096
//   took 140 102 device launches at 2^28, about 0.8 µs each by bench/cdp_launch_tree.cu: most of
//   the 199 ms; 2^15 cuts them about 8-fold);
// - the depth limit: the hardware nests at most 24 levels of grids; a node at level 22 (launch.levels) no longer
//   recurses and one block sorts its segment with a bottom-up mergesort (tiles.cuh), counted as a
//   fallback; so does a node when the node counters run out.
// Device launches and the deepest level are counted on every run (cdp.cuh).
#include <algorithm>
#include <array>
#include <cub/block/block_scan.cuh>

#include "core/registry.hpp"
#include "problems/sort/cdp.cuh"
#include "problems/sort/tiles.cuh"

namespace ema::sort {
namespace {

struct quick_launch {
  int max_blocks = 0;  // 0: 8 per multiprocessor
  int levels = 22;
  static constexpr launch_field fields[] = {
      {"max_blocks", "most blocks of a partition grid (ema: 8 per multiprocessor)", 1, 1 << 20},
      {"levels", "the nesting level at which a node sorts alone instead of partitioning (ema: 22; the hardware nests 24)", 1, 22},
  };
  std::array<int*, 2> members() { return {&max_blocks, &levels}; }
};
constexpr std::size_t copy_alone = 1 << 16;    ///< equal keys the last block copies itself
constexpr unsigned long long no_slot = ~0ull;  ///< a node without counters: sorted by one block
constexpr std::size_t leaf_keys = 1 << 15;     ///< a segment one block sorts alone

/// The counters of one partitioning node.
struct counts {
  unsigned long long less, equal, greater;
  unsigned blocks_done;
};

template <class K>
struct tree {
  K* keys;    ///< the input, and the sorted output
  K* buffer;  ///< the other array
  K* side;    ///< keys equal to a pivot, before they reach their place
  counts* pool;
  unsigned long long pool_size;
  int max_blocks;
  int level_limit;  ///< a node launched at this level sorts its part alone
  cdp::stats* st;
};

template <class K>
__global__ void __launch_bounds__(tiles::threads) node(tree<K> t, bool in_keys, std::size_t lo, std::size_t hi, int level, unsigned long long slot);

template <class K>
__global__ void copy_keys(const K* from, K* to, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    to[i] = from[i];
}

/// Thread 0 of a node at `level`: starts the part [lo, hi) whose keys are in the keys (in_keys) or
/// the buffer, into `stream`.
template <class K>
__device__ void start_part(const tree<K>& t, bool in_keys, std::size_t lo, std::size_t hi, int level, cudaStream_t stream) {
  const std::size_t len = hi - lo;
  if (len == 0) return;
  if (len == 1) {
    if (!in_keys) t.keys[lo] = t.buffer[lo];
    return;
  }
  unsigned blocks = 1;
  unsigned long long slot = no_slot;
  if (len > leaf_keys && level + 1 < t.level_limit) {
    slot = atomicAdd(&t.st->nodes, 1ull) + 1;  // slot 0 is the root's
    if (slot >= t.pool_size)
      slot = no_slot;
    else
      blocks = grid_for(len, tiles::tile_keys, t.max_blocks);
  }
  node<K><<<blocks, tiles::threads, 0, stream>>>(t, in_keys, lo, hi, level + 1, slot);
  cdp::launched(t.st, level);
}

/// Launched by a node into its tail stream when its equal keys are copied by a grid: the children.
template <class K>
__global__ void spawn(tree<K> t, bool in_keys, std::size_t lo0, std::size_t hi0, std::size_t lo1, std::size_t hi1, int level) {
  start_part(t, in_keys, lo0, hi0, level, cudaStreamFireAndForget);
  start_part(t, in_keys, lo1, hi1, level, cudaStreamFireAndForget);
}

template <class K>
__global__ void __launch_bounds__(tiles::threads) node(tree<K> t, bool in_keys, std::size_t lo, std::size_t hi, int level, unsigned long long slot) {
  using scan = cub::BlockScan<unsigned long long, tiles::threads>;
  __shared__ union {
    tiles::block_storage<K> sort;
    typename scan::TempStorage scan;
  } shm;
  __shared__ unsigned long long base[3];
  __shared__ bool last;
  K* const src = in_keys ? t.keys : t.buffer;
  K* const dst = in_keys ? t.buffer : t.keys;
  const std::size_t len = hi - lo;
  if (len <= tiles::tile_keys) {
    tiles::block_sort(src + lo, t.keys + lo, static_cast<int>(len), shm.sort.sort);
    return;
  }
  if (slot == no_slot) {  // a leaf, or a fallback: a segment the tree could not split further
    if (len > leaf_keys && threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(&t.st->fallbacks, 1u);
    tiles::block_merge_sort(src + lo, dst + lo, t.keys + lo, len, shm.sort);
    return;
  }
  counts& c = t.pool[slot];
  const K pivot = src[lo + len / 2];
  // Three counts packed in one 64-bit word, 21 bits each (a block's are at most 4096).
  constexpr int shift_equal = 21, shift_greater = 42;
  constexpr unsigned long long field = (1ull << 21) - 1;
  for (std::size_t first = static_cast<std::size_t>(blockIdx.x) * tiles::tile_keys; first < len;
       first += static_cast<std::size_t>(gridDim.x) * tiles::tile_keys) {
    K k[tiles::items];
    unsigned long long mine = 0;
#pragma unroll
    for (int i = 0; i < tiles::items; ++i) {
      const std::size_t at = first + i * tiles::threads + threadIdx.x;
      if (at < len) {
        k[i] = src[lo + at];
        mine += k[i] < pivot ? 1ull : k[i] > pivot ? 1ull << shift_greater : 1ull << shift_equal;
      }
    }
    unsigned long long offset = 0, total = 0;
    scan(shm.scan).ExclusiveSum(mine, offset, total);
    if (threadIdx.x == 0) {
      base[0] = atomicAdd(&c.less, total & field);
      base[1] = atomicAdd(&c.equal, (total >> shift_equal) & field);
      base[2] = atomicAdd(&c.greater, total >> shift_greater);
    }
    __syncthreads();
    std::size_t l = base[0] + (offset & field), e = base[1] + ((offset >> shift_equal) & field), g = base[2] + (offset >> shift_greater);
#pragma unroll
    for (int i = 0; i < tiles::items; ++i) {
      const std::size_t at = first + i * tiles::threads + threadIdx.x;
      if (at < len) {
        if (k[i] < pivot)
          dst[lo + l++] = k[i];
        else if (k[i] > pivot)
          dst[hi - 1 - g++] = k[i];
        else
          t.side[lo + e++] = k[i];
      }
    }
    __syncthreads();  // base[] and the scan storage are reused by the next chunk
  }
  // The last block to finish sees every block's writes and the final counts.
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&c.blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  const std::size_t less = atomicAdd(&c.less, 0ull), equal = atomicAdd(&c.equal, 0ull), greater = len - less - equal;
  const bool own_copy = equal <= copy_alone;
  if (own_copy)
    for (std::size_t i = threadIdx.x; i < equal; i += tiles::threads) t.keys[lo + less + i] = t.side[lo + i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  __threadfence();
  if (own_copy) {
    start_part(t, !in_keys, lo, lo + less, level, cudaStreamFireAndForget);
    start_part(t, !in_keys, hi - greater, hi, level, cudaStreamFireAndForget);
    return;
  }
  copy_keys<K>
      <<<static_cast<unsigned>(tiles::lesser(static_cast<std::size_t>(t.max_blocks), (equal + 1023) / 1024)), 1024, 0, cudaStreamFireAndForget>>>(
          t.side + lo, t.keys + lo + less, equal);
  cdp::launched(t.st, level);
  spawn<K><<<1, 1, 0, cudaStreamTailLaunch>>>(t, !in_keys, lo, lo + less, hi - greater, hi, level + 1);
  cdp::launched(t.st, level);
}

template <class K>
struct recursive {
  static output run(const input& in, run_context& ctx) {
    auto l = ctx.launch(quick_launch{});
    int sms = 0;
    EMA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    if (l.max_blocks == 0) l.max_blocks = 8 * sms;
    ctx.note("launch.max_blocks", l.max_blocks);
    tree<K> t{};
    t.max_blocks = l.max_blocks;
    t.level_limit = l.levels;
    t.pool_size = (in.n / tiles::tile_keys + 1) * static_cast<std::size_t>(l.levels) + 8;
    auto o = run_on_device<K>(
        in, ctx,
        [&](cuda::session& gpu, device_keys<K>& d) {
          t.keys = d.keys;
          t.buffer = gpu.alloc<K>(d.n);
          t.side = gpu.alloc<K>(d.n);
          t.pool = gpu.alloc<counts>(t.pool_size);
          t.st = gpu.alloc<cdp::stats>(1);
          // Launches waiting at once: up to every part of the tree (about 2 n / 4096 on uniform keys,
          // more where pivots split unevenly; one run at 2^26 overflowed a pool of 2 n / 4096 + 2048).
          cdp::reserve_launches(8 * (d.n / tiles::tile_keys) + 4096);
          return [&]() -> const K* {
            gpu.fill_bytes(t.st, 0, 1);
            gpu.fill_bytes(t.pool, 0, t.pool_size);
            if (d.n > 1) {
              const bool big = d.n > leaf_keys;
              const unsigned blocks = big ? grid_for(d.n, tiles::tile_keys, t.max_blocks) : 1;
              node<K><<<blocks, tiles::threads, 0, gpu.stream()>>>(t, true, 0, d.n, 0, big ? 0ull : no_slot);
              EMA_CUDA_CHECK_LAUNCH();
            }
            return d.keys;
          };
        },
        [&](cuda::session& gpu) { cdp::record(ctx, gpu.read(t.st), "quick-cdp"); });
    return o;
  }
};

output run(const input& in, run_context& ctx) { return run_typed<recursive>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(
    sort_quick_cdp,
    ema::sort::kit::variant<&ema::sort::run>({
        .name = "quick-cdp",
        .algorithm = "quick",
        .backend = ema::backend::cuda,
        .role = ema::variant_role::source,
        .description = "recursive quicksort with CUDA dynamic parallelism: middle pivot, three-way partition by a grid, parts fire-and-forget",
        .provenance = "the study's CUDA-DP form of 004_96c7929830a11cf7.txt (after Algorithms 3 and 4; designed per CDP2)",
        .launch = ema::sort::quick_launch::fields,
    }));
