// sort on the GPU: the block-level pieces the recursive (CUDA-DP) variants and ours share, built on
// CUB's block primitives rather than written again:
// - block_sort: one block sorts up to `tile_keys` keys (cub::BlockRadixSort, the tail padded with a
//   key greater than any input), from one array into another or in place;
// - merge_tile: one block writes `tile_keys` consecutive outputs of the merge of two sorted runs: the
//   run boundaries of its tile by a merge-path search (cub::MergePath), the two pieces staged in
//   shared memory, each thread merging `items` keys (cub::SerialMerge), the output written back
//   through shared memory so the stores are coalesced. Stable: on equal keys the first run's go first.
// Both are __device__ templates, so the same code runs in host-launched and device-launched grids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <iterator>

#include "core/launch.hpp"
#include "problems/sort/device.cuh"

namespace ema::sort::tiles {

constexpr int threads = 256;
constexpr int items = 16;
constexpr int tile_keys = threads * items;  ///< 4096 keys a block sorts at once

struct less_than {
  template <class K>
  __device__ __forceinline__ bool operator()(const K& a, const K& b) const {
    return a < b;
  }
};

__host__ __device__ constexpr std::size_t lesser(std::size_t a, std::size_t b) { return a < b ? a : b; }

template <class K>
using block_radix = cub::BlockRadixSort<K, threads, items>;

/// Sorts in[0, len) into out[0, len) (len <= tile_keys; in == out is allowed), all `threads`
/// threads of the block taking part.
template <class K>
__device__ void block_sort(const K* in, K* out, int len, typename block_radix<K>::TempStorage& temp) {
  K keys[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int at = i * threads + static_cast<int>(threadIdx.x);  // striped: coalesced
    keys[i] = at < len ? in[at] : greatest_key<K>();
  }
  __syncthreads();  // every key read before any is written (in place)
  block_radix<K>(temp).SortBlockedToStriped(keys);
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int at = i * threads + static_cast<int>(threadIdx.x);
    if (at < len) out[at] = keys[i];
  }
}

/// Shared memory of merge_tile: the tile's two pieces (one key more, which SerialMerge may read),
/// one padding word after every 32 keys, so threads reading or writing keys 8 or 16 apart (each
/// thread's own stretch of the merge) hit different banks.
template <class K>
struct merge_storage {
  static constexpr int slots = tile_keys + 1 + (tile_keys + 1) / 32 + 1;
  K keys[slots];
  std::size_t split[2];
};

__host__ __device__ constexpr int padded(int i) { return i + (i >> 5); }

/// Keys in merge_storage read through the padding, as the random-access iterator that
/// cub::MergePath and cub::SerialMerge index.
template <class K>
struct padded_keys {
  using value_type = K;
  using difference_type = int;
  using reference = const K&;
  using pointer = const K*;
  using iterator_category = std::random_access_iterator_tag;
  const K* base;
  int offset;
  __device__ __forceinline__ const K& operator[](int i) const { return base[padded(offset + i)]; }
  __device__ __forceinline__ const K& operator*() const { return base[padded(offset)]; }
  __device__ __forceinline__ padded_keys operator+(int i) const { return {base, offset + i}; }
};

/// Where the merge of a[0, a_len) and b[0, b_len) crosses output `diag`: how many of its first
/// `diag` outputs come from a (a merge-path search, O(log) reads).
template <class K>
__device__ __forceinline__ std::size_t split_at(const K* a, std::size_t a_len, const K* b, std::size_t b_len, std::size_t diag) {
  return cub::MergePath(a, b, a_len, b_len, diag, less_than{});
}

/// The same search by a whole warp (all 32 lanes call it; all get the answer): each step tests 32
/// points of the remaining range at once, so about log33(range) + 1 dependent rounds of loads
/// instead of log2(range) — for a block that must find its own split before it can merge, the
/// search is most of its time (a tile of a 2^27-key merge: 6 rounds instead of 27).
template <class K>
__device__ __forceinline__ std::size_t warp_split_at(const K* a, std::size_t a_len, const K* b, std::size_t b_len, std::size_t diag) {
  const unsigned lane = threadIdx.x % 32;
  // The answer is the first i in [lo, hi) where a[i] would come after the merge's diag-th output,
  // !(b[diag - 1 - i] < a[i]) being true before it and false from it on (cub::MergePath's test).
  std::size_t lo = diag > b_len ? diag - b_len : 0, hi = lesser(diag, a_len);
  while (hi - lo > 32) {
    const std::size_t at = lo + (static_cast<std::size_t>(lane) + 1) * (hi - lo) / 33;
    const unsigned before = __ballot_sync(0xffffffffu, !(b[diag - 1 - at] < a[at]));
    const int c = __popc(before);  // a prefix of the lanes, the test being monotone
    const std::size_t range = hi - lo;
    if (c < 32) hi = lo + (static_cast<std::size_t>(c) + 1) * range / 33;
    if (c > 0) lo = lo + static_cast<std::size_t>(c) * range / 33 + 1;
  }
  const std::size_t at = lo + lane;
  const unsigned before = __ballot_sync(0xffffffffu, at < hi && !(b[diag - 1 - at] < a[at]));
  return lo + static_cast<std::size_t>(__popc(before));
}

/// Outputs [first, last) (at most tile_keys) of the merge of the sorted runs a[0, a_len) and
/// b[0, b_len), written to out[first, last), given a0 and a1, how many of the outputs before
/// `first` and before `last` come from a (split_at).
template <class K>
__device__ void merge_tile(const K* a, const K* b, K* out, std::size_t first, std::size_t last, std::size_t a0, std::size_t a1, merge_storage<K>& s) {
  const int na = static_cast<int>(a1 - a0), nb = static_cast<int>((last - a1) - (first - a0));
  const K* pa = a + a0;
  const K* pb = b + (first - a0);
  for (int i = static_cast<int>(threadIdx.x); i < na + nb; i += threads) s.keys[padded(i)] = i < na ? pa[i] : pb[i - na];
  __syncthreads();
  const int diag = min(static_cast<int>(threadIdx.x) * items, na + nb);
  const padded_keys<K> staged{s.keys, 0};
  const int ka = cub::MergePath(staged, staged + na, na, nb, diag, less_than{});
  K merged[items];
  int from[items];
  cub::SerialMerge(staged, ka, na + diag - ka, na - ka, nb - (diag - ka), merged, from, less_than{});
  __syncthreads();
#pragma unroll
  for (int i = 0; i < items; ++i)
    if (diag + i < na + nb) s.keys[padded(diag + i)] = merged[i];
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < na + nb; i += threads) out[first + i] = s.keys[padded(i)];
  __syncthreads();  // the storage may be reused by the caller's next tile
}

/// The same, the block finding its own two splits (two warps searching, warp_split_at): for a
/// caller without a partition pass.
template <class K>
__device__ void merge_tile(const K* a, std::size_t a_len, const K* b, std::size_t b_len, K* out, std::size_t first, merge_storage<K>& s) {
  const std::size_t total = a_len + b_len;
  const std::size_t last = first + tile_keys < total ? first + tile_keys : total;
  if (const unsigned warp = threadIdx.x / 32; warp < 2) {
    const std::size_t split = warp_split_at(a, a_len, b, b_len, warp == 0 ? first : last);
    if (threadIdx.x % 32 == 0) s.split[warp] = split;
  }
  __syncthreads();
  merge_tile(a, b, out, first, last, s.split[0], s.split[1], s);
}

/// Blocks needed to merge `keys` outputs.
__host__ __device__ inline std::size_t merge_blocks(std::size_t keys) { return ceil_div(keys, tile_keys); }

/// One pass of a bottom-up mergesort, in two launches: src holds sorted runs of `width` keys (a
/// multiple of tile_keys); each pair becomes one run of 2 width in dst. First a thread per tile
/// boundary finds its split (many searches in flight at once, instead of a block waiting on its
/// own), then block b writes outputs [b tile_keys, (b + 1) tile_keys) of the array.
template <class K>
__global__ void merge_splits(const K* __restrict__ src, std::size_t n, std::size_t width, std::size_t* __restrict__ splits, std::size_t tiles) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const std::size_t at = lesser(t * tile_keys, n);
  const std::size_t pair = at / (2 * width) * (2 * width);
  const std::size_t a_len = lesser(width, n - pair), b_len = lesser(width, n - pair - a_len);
  splits[t] = split_at(src + pair, a_len, src + pair + a_len, b_len, at - pair);
}

template <class K>
__global__ void __launch_bounds__(threads)
    merge_pass(const K* __restrict__ src, K* __restrict__ dst, std::size_t n, std::size_t width, const std::size_t* __restrict__ splits) {
  __shared__ merge_storage<K> s;
  for (std::size_t t = blockIdx.x; t * tile_keys < n; t += gridDim.x) {
    const std::size_t first = t * tile_keys, last = lesser(first + tile_keys, n);
    const std::size_t pair = first / (2 * width) * (2 * width);
    const std::size_t a_len = lesser(width, n - pair);
    // A tile never straddles two pairs (2 width is a multiple of tile_keys); at the pair's end
    // the next split is measured from the next pair: the whole first run.
    const std::size_t a1 = last == lesser(pair + 2 * width, n) ? a_len : splits[t + 1];
    merge_tile(src + pair, src + pair + a_len, dst + pair, first - pair, last - pair, splits[t], a1, s);
  }
}

/// One merge of the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi), over a grid of
/// merge_blocks(hi - lo) blocks.
template <class K>
__global__ void __launch_bounds__(threads)
    merge_runs(const K* __restrict__ src, K* __restrict__ dst, std::size_t lo, std::size_t mid, std::size_t hi) {
  __shared__ merge_storage<K> s;
  merge_tile(src + lo, mid - lo, src + mid, hi - mid, dst + lo, static_cast<std::size_t>(blockIdx.x) * tile_keys, s);
}

/// Sorts every tile of `tile_keys` keys of src into dst (the last one shorter), a block per tile.
template <class K>
__global__ void __launch_bounds__(threads) sort_tiles(const K* src, K* dst, std::size_t n) {
  __shared__ typename block_radix<K>::TempStorage temp;
  for (std::size_t first = static_cast<std::size_t>(blockIdx.x) * tile_keys; first < n; first += static_cast<std::size_t>(gridDim.x) * tile_keys) {
    const int len = static_cast<int>(n - first < tile_keys ? n - first : tile_keys);
    block_sort(src + first, dst + first, len, temp);
    __syncthreads();
  }
}

/// Shared memory of one block that both sorts tiles and merges.
template <class K>
union block_storage {
  typename block_radix<K>::TempStorage sort;
  merge_storage<K> merge;
};

/// One block alone sorts a[0, len) of any length into `out`, using a and b (len keys each) as the
/// two buffers of a bottom-up mergesort: tiles sorted from a into b, then merged back and forth;
/// `out` is a or b. Slow for large len (one multiprocessor): a fallback, not a strategy.
template <class K>
__device__ void block_merge_sort(K* a, K* b, K* out, std::size_t len, block_storage<K>& s) {
  for (std::size_t first = 0; first < len; first += tile_keys) {
    block_sort(a + first, b + first, static_cast<int>(lesser(len - first, tile_keys)), s.sort);
    __syncthreads();
  }
  K* from = b;
  K* to = a;
  for (std::size_t width = tile_keys; width < len; width *= 2) {
    for (std::size_t first = 0; first < len; first += tile_keys) {
      const std::size_t pair = first / (2 * width) * (2 * width);
      const std::size_t a_len = lesser(width, len - pair), b_len = lesser(width, len - pair - a_len);
      merge_tile(from + pair, a_len, from + pair + a_len, b_len, to + pair, first - pair, s.merge);
    }
    K* t = from;
    from = to;
    to = t;
  }
  if (from != out)
    for (std::size_t i = threadIdx.x; i < len; i += threads) out[i] = from[i];
  __syncthreads();
}

}  // namespace ema::sort::tiles
