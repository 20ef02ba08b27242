// sort / quick-sample — ours, the fastest GPU quicksort we can make: a sample sort, that is a
// quicksort with many pivots at once instead of one (Nogueira, 004_96c7929830a11cf7.txt, Algorithms
// 3 and 5 partition around one pivot; this partitions around hundreds), in two levels so that every
// key is counted and placed with shared-memory atomics, never global ones.
// - The keys are cut into B = n / 2048 final parts. One level (B <= 256) or two: the first splits the
//   array into about sqrt(B) segments, the second splits each segment into size / 2048 parts.
// - A level works on segments (the whole array at level one, the first level's parts at level two),
//   each with its own splitters: 32 keys a part are drawn at pseudo-random positions of the segment,
//   sorted by one block, and every 32nd is a splitter, laid out as a perfect search tree in
//   breadth-first order (Eytzinger, padded with the largest splitter), at most 1023 splitters, so the
//   whole tree fits a block's shared memory. A key equal to a splitter goes to that splitter's own
//   "equal" part, already in order, so repeated keys (equal, few, zipf) never make a part grow: 2S - 1
//   parts for S - 1 splitters, alternately between and equal to them; the equal parts are final.
// - The segments are cut into tiles of T keys (a few tiles per multiprocessor); a block counts its
//   tile's keys per part in shared memory and writes the counts at [segment][part][tile]; one scan
//   (cub::DeviceScan) of that layout gives every (part, tile) its place in the output; the block then
//   classifies its tile again and scatters each key to its place plus a shared-memory counter.
// - Last, a block sorts each part between splitters in place (cub::BlockRadixSort: 2048 keys or
//   4096); with 32-fold oversampling a part rarely holds more than 4096 keys; one that does is sorted
//   by its block with the bottom-up mergesort of tiles.cuh (counted: the note `fallbacks`).
// Traffic: per level a read (count) and a read and write (scatter), then a read and write per part:
// seven passes over the keys for two levels, against 2 log2(n) for the source's quicksorts.
// Each step is timed as a part of the kernel phase: `sample`, `classify`, `scatter`, `blocks`.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/random.hpp"
#include "problems/sort/tiles.cuh"

namespace ema::sort {
namespace {

constexpr std::size_t part_keys = 2048;  ///< expected keys in a final part between splitters
constexpr std::size_t oversample = 32;
constexpr int max_height = 10;                         ///< a segment's splitter tree: at most 10 levels
constexpr std::size_t max_between = 1u << max_height;  ///< so at most 1024 parts between splitters
constexpr std::size_t one_level_parts = 256;           ///< B up to this: one level
constexpr int plan_threads = 1024, plan_items = 2;     ///< the plan kernel: up to 2048 segments
constexpr int per_thread = 8;                          ///< keys a thread of the count loads before classifying them
constexpr int level_threads = 256;                     ///< threads of the count and scatter kernels

using count_t = unsigned long long;

/// One level's segments, on the device: segment s holds keys [begin[s], begin[s] + size[s]) of the
/// level's input, and the same places of its output.
struct level_plan {
  count_t* begin;
  count_t* size;
  count_t* between;     ///< S: parts between splitters (S - 1 splitters, 2S - 1 parts)
  int* height;          ///< levels of the splitter tree: the least h with 2^h >= S
  int* done;            ///< the segment's keys are all equal (a first-level equal part): copied only
  count_t* tile_base;   ///< tiles before the segment's; [segments]: all tiles
  count_t* count_base;  ///< counts before the segment's (2S - 1 per tile); [segments]: all counts
  count_t* part_base;   ///< parts between splitters before the segment's; [segments]: all
  int segments;
  count_t tile_keys;  ///< T
};

/// The segment holding item g of a prefix `base` over `segments` segments (the last whose base is
/// at most g: empty segments before it are skipped).
__device__ __forceinline__ int segment_of(const count_t* base, int segments, count_t g) {
  int lo = 0, hi = segments;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (base[mid] <= g)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

/// Fills a level's plan: level one (prev == nullptr) is the whole array with `first_between` parts;
/// level two's segments are the first level's parts, read from its offsets (prev_tiles tiles a
/// part), the odd ones (equal to a splitter) done.
__global__ void __launch_bounds__(plan_threads)
    plan_level(level_plan p, const count_t* prev, count_t prev_tiles, count_t n, count_t first_between, count_t cap) {
  using scan = cub::BlockScan<count_t, plan_threads>;
  __shared__ typename scan::TempStorage temp;
  count_t tiles[plan_items], counts[plan_items], parts[plan_items];
#pragma unroll
  for (int i = 0; i < plan_items; ++i) {
    const int s = static_cast<int>(threadIdx.x) * plan_items + i;
    tiles[i] = counts[i] = parts[i] = 0;
    if (s >= p.segments) continue;
    count_t begin = 0, size = n, between = first_between;
    bool done = false;
    if (prev) {
      begin = prev[s * prev_tiles];
      size = (s + 1 < p.segments ? prev[(s + 1) * prev_tiles] : n) - begin;
      done = s % 2 == 1;
      const count_t wanted = ceil_div(size, part_keys);
      between = done || wanted < 1 ? 1 : wanted < cap ? wanted : cap;
    }
    int height = 0;
    while ((count_t{1} << height) < between) ++height;
    p.begin[s] = begin;
    p.size[s] = size;
    p.between[s] = between;
    p.height[s] = height;
    p.done[s] = done;
    tiles[i] = ceil_div(size, p.tile_keys);
    counts[i] = (2 * between - 1) * tiles[i];
    parts[i] = between;
  }
  count_t total = 0;
  scan(temp).ExclusiveSum(tiles, tiles, total);
  if (threadIdx.x == 0) p.tile_base[p.segments] = total;
  __syncthreads();
  scan(temp).ExclusiveSum(counts, counts, total);
  if (threadIdx.x == 0) p.count_base[p.segments] = total;
  __syncthreads();
  scan(temp).ExclusiveSum(parts, parts, total);
  if (threadIdx.x == 0) p.part_base[p.segments] = total;
#pragma unroll
  for (int i = 0; i < plan_items; ++i) {
    const int s = static_cast<int>(threadIdx.x) * plan_items + i;
    if (s >= p.segments) continue;
    p.tile_base[s] = tiles[i];
    p.count_base[s] = counts[i];
    p.part_base[s] = parts[i];
  }
}

/// Block s draws segment s's sample (32 keys a part, at sample + 32 part_base[s]), sorts it and
/// lays its splitters out as the segment's tree (at trees + 2 part_base[s], nodes 1 .. 2^height - 1).
template <class K>
__global__ void __launch_bounds__(tiles::threads) sample_level(const K* __restrict__ keys, level_plan p, K* sample, K* scratch, K* trees) {
  __shared__ tiles::block_storage<K> storage;
  for (int s = static_cast<int>(blockIdx.x); s < p.segments; s += static_cast<int>(gridDim.x)) {
    const count_t between = p.between[s];
    if (between <= 1) continue;
    const count_t count = between * oversample, at = p.part_base[s] * oversample, begin = p.begin[s], size = p.size[s];
    K* drawn = sample + at;
    for (count_t i = threadIdx.x; i < count; i += tiles::threads) drawn[i] = keys[begin + random_below(0x5a3b1e + s, i, size)];
    __syncthreads();
    tiles::block_merge_sort(drawn, scratch + at, drawn, count, storage);
    const int height = p.height[s];
    const count_t m = between - 1;
    K* tree = trees + 2 * p.part_base[s];
    for (count_t k = 1 + threadIdx.x; k < (count_t{1} << height); k += tiles::threads) {
      const int d = 63 - __clzll(static_cast<long long>(k));
      const count_t rank = (2 * (k - (count_t{1} << d)) + 1) * (count_t{1} << (height - 1 - d)) - 1;
      tree[k] = drawn[((rank < m ? rank : m - 1) + 1) * oversample];
    }
    __syncthreads();
  }
}

/// The parts of N keys among 2m + 1 (the tree in shared memory, `height` levels): 2i for a key
/// between splitters i - 1 and i, 2i + 1 for a key equal to splitter i (the last of equal
/// splitters). The N searches go down the tree a level at a time together, so their shared-memory
/// loads are in flight at once.
template <class K, int N>
__device__ __forceinline__ void parts_of(const K (&key)[N], unsigned (&part)[N], const K* tree, int height, unsigned m) {
  unsigned k[N];
  K pred[N];
  bool right[N];
#pragma unroll
  for (int j = 0; j < N; ++j) k[j] = 1, right[j] = false, pred[j] = K{};
  for (int level = 0; level < height; ++level) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const K t = tree[k[j]];
      const bool go = !(key[j] < t);  // t <= key: the key's rank is past this splitter
      if (go) pred[j] = t, right[j] = true;
      k[j] = 2 * k[j] + go;
    }
  }
#pragma unroll
  for (int j = 0; j < N; ++j) {
    unsigned ub = k[j] - (1u << height);  // splitters not greater than the key (the padding clipped below)
    if (ub > m) ub = m;
    part[j] = ub > 0 && right[j] && !(pred[j] < key[j]) ? 2 * ub - 1 : 2 * ub;
  }
}

template <class K>
struct count_storage {
  K tree[max_between];
  unsigned count[2 * max_between];  ///< keys of the tile in each part
};

/// Keys a thread of the scatter classifies at once: a chunk of level_threads * scatter_items keys
/// (4096 of 4 bytes, 2048 of 8) is ordered by part in shared memory before it is written.
template <class K>
constexpr int scatter_items = sizeof(K) <= 4 ? 16 : 8;
template <class K>
constexpr int chunk_keys = level_threads* scatter_items<K>;
constexpr int scan_items = 2 * max_between / level_threads;  ///< parts a thread scans
using part_scan = cub::BlockScan<unsigned, level_threads>;

template <class K>
struct scatter_storage {
  K tree[max_between];
  unsigned placed[2 * max_between];  ///< where the tile's next key of each part goes, from its segment's start
  unsigned start[2 * max_between];   ///< the chunk's keys of each part: counted, then where they start in `keys`
  K keys[chunk_keys<K>];             ///< the chunk, ordered by part
  std::uint16_t part[chunk_keys<K>];
  typename part_scan::TempStorage scan;
};

/// A block's tile: which segment, which tile of it, and where its keys are.
struct tile_at {
  int segment;
  count_t tile, tiles, first, len, between;
  int height;
};

__device__ __forceinline__ tile_at find_tile(const level_plan& p, count_t g) {
  tile_at t;
  t.segment = segment_of(p.tile_base, p.segments, g);
  t.tile = g - p.tile_base[t.segment];
  t.tiles = p.tile_base[t.segment + 1] - p.tile_base[t.segment];
  t.first = p.begin[t.segment] + t.tile * p.tile_keys;
  const count_t left = p.size[t.segment] - t.tile * p.tile_keys;
  t.len = left < p.tile_keys ? left : p.tile_keys;
  t.between = p.between[t.segment];
  t.height = p.height[t.segment];
  return t;
}

/// Every key of the tile classified, `visit(i, part)` called for its place i in the tile: each thread first loads
/// per_thread keys (coalesced), then classifies them, so the loads are in flight together.
template <class K, class Visit>
__device__ __forceinline__ void classify_tile(const K* __restrict__ keys, const tile_at& t, const K* tree, Visit&& visit) {
  const unsigned m = static_cast<unsigned>(t.between - 1);
  const count_t step = static_cast<count_t>(per_thread) * level_threads;
  for (count_t base = 0; base < t.len; base += step) {
    K k[per_thread];
    unsigned part[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const count_t i = base + j * level_threads + threadIdx.x;
      k[j] = i < t.len ? keys[t.first + i] : K{};
    }
    parts_of(k, part, tree, t.height, m);
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const count_t i = base + j * level_threads + threadIdx.x;
      if (i < t.len) visit(i, part[j]);
    }
  }
}

template <class K>
__device__ __forceinline__ void load_tree(const K* trees, const level_plan& p, const tile_at& t, K* tree) {
  const K* from = trees + 2 * p.part_base[t.segment];
  for (int k = 1 + static_cast<int>(threadIdx.x); k < (1 << t.height); k += level_threads) tree[k] = from[k];
}

template <class K>
__global__ void __launch_bounds__(level_threads) count_level(const K* __restrict__ keys, level_plan p, const K* __restrict__ trees,
                                                             count_t* __restrict__ counts, std::uint16_t* __restrict__ kept) {
  __shared__ count_storage<K> st;
  const count_t total = p.tile_base[p.segments];
  for (count_t g = blockIdx.x; g < total; g += gridDim.x) {
    const tile_at t = find_tile(p, g);
    const count_t parts = 2 * t.between - 1;
    load_tree(trees, p, t, st.tree);
    for (count_t q = threadIdx.x; q < parts; q += level_threads) st.count[q] = 0;
    __syncthreads();
    if (t.between == 1) {
      if (threadIdx.x == 0) st.count[0] = static_cast<unsigned>(t.len);
    } else {
      classify_tile(keys, t, st.tree, [&](count_t i, unsigned part) {
        atomicAdd(&st.count[part], 1u);
        if (kept) kept[t.first + i] = static_cast<std::uint16_t>(part);
      });
    }
    __syncthreads();
    const count_t base = p.count_base[t.segment] + t.tile;
    for (count_t q = threadIdx.x; q < parts; q += level_threads) counts[base + q * t.tiles] = st.count[q];
    __syncthreads();
  }
}

template <class K>
__global__ void __launch_bounds__(level_threads)
    scatter_level(const K* __restrict__ from, level_plan p, const K* __restrict__ trees, const count_t* __restrict__ offsets,
                  const std::uint16_t* __restrict__ kept, K* __restrict__ to) {
  // Each chunk's keys are ordered by part in shared memory first, so that a warp's stores land in
  // a few runs of consecutive places instead of 32 scattered words.
  constexpr int items = scatter_items<K>, chunk = chunk_keys<K>;
  __shared__ scatter_storage<K> st;
  const count_t total = p.tile_base[p.segments];
  for (count_t g = blockIdx.x; g < total; g += gridDim.x) {
    const tile_at t = find_tile(p, g);
    const unsigned parts = static_cast<unsigned>(2 * t.between - 1), m = static_cast<unsigned>(t.between - 1);
    const count_t segment_begin = p.begin[t.segment];
    if (!kept) load_tree(trees, p, t, st.tree);  // with the parts kept, no key is searched
    const count_t base = p.count_base[t.segment] + t.tile;
    for (unsigned q = threadIdx.x; q < parts; q += level_threads) st.placed[q] = static_cast<unsigned>(offsets[base + q * t.tiles] - segment_begin);
    __syncthreads();
    if (t.between == 1) {
      for (count_t i = threadIdx.x; i < t.len; i += level_threads) to[segment_begin + st.placed[0] + i] = from[t.first + i];
      __syncthreads();
      continue;
    }
    for (count_t at = 0; at < t.len; at += chunk) {
      const int len = static_cast<int>(t.len - at < static_cast<count_t>(chunk) ? t.len - at : chunk);
      K k[items];
      unsigned part[items], rank[items];
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int i = j * level_threads + static_cast<int>(threadIdx.x);
        k[j] = i < len ? from[t.first + at + i] : K{};
      }
      if (kept) {
#pragma unroll
        for (int j = 0; j < items; ++j) {
          const int i = j * level_threads + static_cast<int>(threadIdx.x);
          part[j] = i < len ? kept[t.first + at + i] : 0u;
        }
      } else {
        parts_of(k, part, st.tree, t.height, m);
      }
      for (unsigned q = threadIdx.x; q < 2 * max_between; q += level_threads) st.start[q] = 0;
      __syncthreads();
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int i = j * level_threads + static_cast<int>(threadIdx.x);
        if (i < len) rank[j] = atomicAdd(&st.start[part[j]], 1u);
      }
      __syncthreads();
      {  // counts -> starts, in place
        unsigned c[scan_items];
#pragma unroll
        for (int i = 0; i < scan_items; ++i) c[i] = st.start[threadIdx.x * scan_items + i];
        part_scan(st.scan).ExclusiveSum(c, c);
#pragma unroll
        for (int i = 0; i < scan_items; ++i) st.start[threadIdx.x * scan_items + i] = c[i];
      }
      __syncthreads();
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int i = j * level_threads + static_cast<int>(threadIdx.x);
        if (i < len) {
          const unsigned at_chunk = st.start[part[j]] + rank[j];
          st.keys[at_chunk] = k[j];
          st.part[at_chunk] = static_cast<std::uint16_t>(part[j]);
        }
      }
      __syncthreads();
      for (int i = static_cast<int>(threadIdx.x); i < len; i += level_threads) {
        const unsigned q = st.part[i];
        to[segment_begin + st.placed[q] + (i - st.start[q])] = st.keys[i];
      }
      __syncthreads();
      for (unsigned q = threadIdx.x; q < parts; q += level_threads)
        st.placed[q] += (q + 1 < parts ? st.start[q + 1] : static_cast<unsigned>(len)) - st.start[q];
      __syncthreads();
    }
  }
}

/// A key's bits in an order where unsigned comparison is the keys' order, as cub's radix sorts
/// rank them (a float's sign bit flipped, or all its bits if it is negative; -0 taken as +0): the
/// keys between two values share the bits above the highest bit where those two differ.
template <class K>
__device__ __forceinline__ auto ordered_bits(K key) {
  if constexpr (std::is_same_v<K, float>) {
    unsigned u = __float_as_uint(key);
    if (u == 0x80000000u) u = 0;
    return u ^ ((u >> 31) ? 0xffffffffu : 0x80000000u);
  } else {
    return key;
  }
}

/// The key whose ordered bits are b.
template <class K, class B>
__device__ __forceinline__ K from_ordered_bits(B b) {
  if constexpr (std::is_same_v<K, float>)
    return __uint_as_float(b ^ ((b >> 31) ? 0x80000000u : 0xffffffffu));
  else
    return b;
}

template <class K>
using key_bits = decltype(ordered_bits(K{}));

template <class K, int Items>
// 5-bit digits: at 2^28 u64 keys 5% faster than cub's default 4 (23.9 against 25.1 ms), u32 within
// 1%; 6 bits 12% slower for u64 (docs/perf-notes.md).
using part_radix = cub::BlockRadixSort<K, tiles::threads, Items, cub::NullType, 5>;

template <class K>
union part_storage {
  tiles::block_storage<K> large;
  typename part_radix<K, 8>::TempStorage small;
  typename part_radix<K, tiles::items>::TempStorage medium;
  typename cub::BlockReduce<key_bits<K>, tiles::threads>::TempStorage reduce;
};

/// Sorts keys[0, len) in place (len <= Items · threads) on the bits where its keys differ only:
/// the keys of a part lie between two splitters, so at 2^28 keys about 15 of 32 bits, 4 radix
/// passes instead of 8. The tail is padded with the part's common prefix followed by ones: not less
/// than any of its keys, and equal only to a key of the same bits.
template <class K, int Items>
__device__ void sort_part(K* keys, int len, part_storage<K>& s, key_bits<K>* range) {
  using bits_t = key_bits<K>;
  K k[Items];
  bits_t lo = ~bits_t{0}, hi = 0;
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int at = i * tiles::threads + static_cast<int>(threadIdx.x);
    if (at < len) {
      k[i] = keys[at];
      const bits_t b = ordered_bits(k[i]);
      lo = b < lo ? b : lo;
      hi = b > hi ? b : hi;
    }
  }
  using reduce = cub::BlockReduce<bits_t, tiles::threads>;
  const bits_t block_lo = reduce(s.reduce).Reduce(lo, [](bits_t a, bits_t b) { return a < b ? a : b; });
  __syncthreads();
  const bits_t block_hi = reduce(s.reduce).Reduce(hi, [](bits_t a, bits_t b) { return a < b ? b : a; });
  if (threadIdx.x == 0) range[0] = block_lo, range[1] = block_hi;
  __syncthreads();
  const bits_t differ = range[0] ^ range[1];
  if (differ == 0) return;  // all equal
  int end_bit =
      static_cast<int>(8 * sizeof(bits_t)) - (sizeof(bits_t) == 8 ? __clzll(static_cast<long long>(differ)) : __clz(static_cast<int>(differ)));
  bits_t pad_bits = range[1] | ((bits_t{1} << (end_bit - 1)) - 1 + (bits_t{1} << (end_bit - 1)));
  if (std::is_same_v<K, float> && pad_bits == 0x7fffffffu) {
    // Those are -0's bits, which cub ranks as +0's (0x80000000, below every key of this part):
    // sort on all 32 bits with a pad above every key instead.
    end_bit = 32;
    pad_bits = static_cast<bits_t>(~bits_t{0});
  }
  const K pad = from_ordered_bits<K>(pad_bits);
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int at = i * tiles::threads + static_cast<int>(threadIdx.x);
    if (at >= len) k[i] = pad;
  }
  __syncthreads();
  part_radix<K, Items>(Items == 8 ? reinterpret_cast<typename part_radix<K, Items>::TempStorage&>(s.small)
                                  : reinterpret_cast<typename part_radix<K, Items>::TempStorage&>(s.medium))
      .SortBlockedToStriped(k, 0, end_bit);
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int at = i * tiles::threads + static_cast<int>(threadIdx.x);
    if (at < len) keys[at] = k[i];
  }
}

/// A block sorts each part between splitters of the last level in place (the equal parts and the
/// done segments are in order already); `scratch` is the level's input, free by now.
template <class K>
__global__ void __launch_bounds__(tiles::threads)
    sort_parts(K* keys, K* scratch, level_plan p, const count_t* __restrict__ offsets, unsigned* fallbacks) {
  __shared__ part_storage<K> s;
  __shared__ key_bits<K> range[2];
  const count_t total = p.part_base[p.segments];
  for (count_t g = blockIdx.x; g < total; g += gridDim.x) {
    const int seg = segment_of(p.part_base, p.segments, g);
    const count_t tiles = p.tile_base[seg + 1] - p.tile_base[seg];
    if (p.done[seg] || tiles == 0) continue;
    const count_t j = 2 * (g - p.part_base[seg]), parts = 2 * p.between[seg] - 1, base = p.count_base[seg];
    const count_t lo = offsets[base + j * tiles];
    const count_t hi = j + 1 < parts ? offsets[base + (j + 1) * tiles] : p.begin[seg] + p.size[seg];
    const count_t len = hi - lo;
    if (len <= 1) continue;
    if (len <= static_cast<count_t>(8 * tiles::threads)) {
      sort_part<K, 8>(keys + lo, static_cast<int>(len), s, range);
    } else if (len <= static_cast<count_t>(tiles::tile_keys)) {
      sort_part<K, tiles::items>(keys + lo, static_cast<int>(len), s, range);
    } else {
      if (threadIdx.x == 0) atomicAdd(fallbacks, 1u);
      tiles::block_merge_sort(keys + lo, scratch + lo, keys + lo, len, s.large);
    }
    __syncthreads();
  }
}

/// The launch settings (core/launch.hpp) of the count and scatter kernels.
struct sample_launch {
  int tiles_per_sm = 8, keep_parts = 1;
  static constexpr launch_field fields[] = {
      {"keep_parts",
       "1: the count pass stores each key's part (2 bytes a key) for the scatter to read; 0: the scatter classifies every key again "
       "(ema: 1)",
       0, 1},
      {"tiles_per_sm",
       "tiles a level's keys are cut into, per multiprocessor: each tile's block copies its segment's splitter tree into shared memory "
       "and counts and scatters its keys there (ema: 8)",
       1, 256}};
  std::array<int*, 2> members() { return {&keep_parts, &tiles_per_sm}; }
};

std::size_t pow2_at_least(std::size_t x) {
  std::size_t p = 1;
  while (p < x) p *= 2;
  return p;
}

template <class K>
struct sample_sort {
  static output run(const input& in, run_context& ctx) {
    const std::size_t n = in.n;
    // A tile's places within its segment are 32-bit (shared memory is the scatter's limit).
    if (n > 0xffffffffull) throw usage_error("sort quick-sample: at most 2^32 - 1 keys, got n = " + std::to_string(n));
    const std::size_t parts_wanted = std::max<std::size_t>(1, ceil_div(n, part_keys));  // B
    const int levels = parts_wanted <= one_level_parts ? 1 : 2;
    const std::size_t first_between =
        levels == 1 ? parts_wanted : std::min(max_between, static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(parts_wanted)))));
    const std::size_t segments2 = 2 * first_between - 1;  // the first level's parts
    // A second-level segment gets size / 2048 parts, at most 4 times the expected number (a part
    // past that would hold more keys, sorted all the same) and never more than a tree holds.
    const std::size_t cap2 = std::min(max_between, 4 * ceil_div(parts_wanted, first_between));
    const auto l = ctx.launch(sample_launch{});
    int sms = 0;
    EMA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    // A level's tile: a few per multiprocessor, and at least 8 keys a count it writes.
    const auto tile_for = [&](std::size_t parts) {
      return std::max(pow2_at_least(ceil_div(n, static_cast<std::size_t>(sms) * l.tiles_per_sm)), pow2_at_least(8 * parts));
    };
    const std::size_t tile1 = tile_for(2 * first_between - 1), tile2 = tile_for(2 * cap2 - 1);
    const std::size_t tiles1 = ceil_div(n, tile1), tiles2 = ceil_div(n, tile2) + segments2;
    const std::size_t counts1 = (2 * first_between - 1) * tiles1, counts2 = levels == 2 ? (2 * cap2 - 1) * tiles2 : 0;
    const std::size_t count_room = std::max(counts1, counts2) + 1;
    const std::size_t part_room = parts_wanted + segments2 + 1;  // Σ S of any level, with room
    unsigned* fallbacks = nullptr;
    count_t* total_parts = nullptr;
    auto o = run_on_device<K>(
        in, ctx,
        [&](cuda::session& gpu, device_keys<K>& d) {
          K* other = gpu.alloc<K>(d.n);
          K* sample = gpu.alloc<K>(part_room * oversample);
          K* sample_scratch = gpu.alloc<K>(part_room * oversample);
          K* trees = gpu.alloc<K>(2 * part_room);
          count_t* counts = gpu.alloc<count_t>(count_room);
          std::uint16_t* kept = l.keep_parts ? gpu.alloc<std::uint16_t>(d.n) : nullptr;
          count_t* offsets[2] = {gpu.alloc<count_t>(count_room), gpu.alloc<count_t>(count_room)};
          level_plan plan[2];
          for (int v = 0; v < levels; ++v) {
            const std::size_t segs = v == 0 ? 1 : segments2;
            count_t* room = gpu.alloc<count_t>(8 * (segs + 1));
            int* flags = gpu.alloc<int>(2 * (segs + 1));
            plan[v] = {room,
                       room + (segs + 1),
                       room + 2 * (segs + 1),
                       flags,
                       flags + (segs + 1),
                       room + 3 * (segs + 1),
                       room + 4 * (segs + 1),
                       room + 5 * (segs + 1),
                       static_cast<int>(segs),
                       v == 0 ? tile1 : tile2};
          }
          fallbacks = gpu.alloc<unsigned>(1);
          total_parts = plan[levels - 1].part_base + plan[levels - 1].segments;
          std::size_t scan_bytes = 0;
          EMA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, offsets[0], count_room));
          void* temp = gpu.alloc<char>(scan_bytes);
          return [&, other, sample, sample_scratch, trees, counts, kept, offsets, plan, temp, scan_bytes]() -> const K* {
            gpu.fill_bytes(fallbacks, 0, 1);
            if (d.n <= 1) return d.keys;
            const cudaStream_t st = gpu.stream();
            K* from = d.keys;
            K* to = other;
            for (int v = 0; v < levels; ++v) {
              const level_plan& p = plan[v];
              const std::size_t grid = v == 0 ? tiles1 : tiles2;
              {
                auto part = gpu.kernel_part("sample");
                plan_level<<<1, plan_threads, 0, st>>>(p, v == 0 ? nullptr : offsets[0], tiles1, d.n, first_between, cap2);
                EMA_CUDA_CHECK_LAUNCH();
                sample_level<K><<<static_cast<unsigned>(p.segments), tiles::threads, 0, st>>>(from, p, sample, sample_scratch, trees);
                EMA_CUDA_CHECK_LAUNCH();
              }
              {
                auto part = gpu.kernel_part("classify");
                count_level<K><<<static_cast<unsigned>(std::min<std::size_t>(grid, 1u << 30)), level_threads, 0, st>>>(from, p, trees, counts, kept);
                EMA_CUDA_CHECK_LAUNCH();
              }
              {
                auto part = gpu.kernel_part("scatter");
                std::size_t bytes = scan_bytes;
                const std::size_t used = (v == 0 ? counts1 : counts2) + 1;
                EMA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, counts, offsets[v], used, st));
                scatter_level<K>
                    <<<static_cast<unsigned>(std::min<std::size_t>(grid, 1u << 30)), level_threads, 0, st>>>(from, p, trees, offsets[v], kept, to);
                EMA_CUDA_CHECK_LAUNCH();
              }
              std::swap(from, to);
            }
            {
              auto part = gpu.kernel_part("blocks");
              sort_parts<K><<<static_cast<unsigned>(std::min<std::size_t>(part_room, 1u << 20)), tiles::threads, 0, st>>>(
                  from, to, plan[levels - 1], offsets[levels - 1], fallbacks);
              EMA_CUDA_CHECK_LAUNCH();
            }
            return from;
          };
        },
        [&](cuda::session& gpu) {
          ctx.note("fallbacks", static_cast<std::int64_t>(gpu.read(fallbacks)));
          if (n > 1) ctx.note("parts", static_cast<std::int64_t>(gpu.read(total_parts)));
        });
    ctx.note("levels", levels);
    ctx.note("first_level_parts", static_cast<std::int64_t>(first_between));
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
                .description = "ours: sample sort in two levels (about sqrt(n/2048) segments, then n/2048 parts), splitters from 32-fold samples, "
                               "keys counted and scattered with shared-memory atomics, keys equal to a splitter set apart, a block per part",
                .provenance = "ours (a quicksort with many pivots at once)",
                .launch = ema::sort::sample_launch::fields,
            }));
