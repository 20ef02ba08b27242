// sort / merge-path — ours, the fastest GPU mergesort we can build from CUB's block pieces
// (tiles.cuh): one launch sorts every tile of 4096 keys in a block (cub::BlockRadixSort in shared
// memory and registers), then merge passes, the runs ping-ponging between the keys and one buffer.
// Each pass reads and writes every key once, so the time is about (1 + passes) · 2 n sizeof(K) /
// bandwidth, and the lever is the pass count:
// - two-way (launch.ways=2; below 2^26 keys by default): log2(n / 4096) passes each merging pairs
//   of runs: a thread per tile boundary finds where the merge crosses it (merge path,
//   cub::MergePath), then every block writes 4096 outputs (cub::SerialMerge in shared memory);
// - four-way (launch.ways=4; from 2^26 keys by default): ceil(log4(n / 4096)) passes each merging
//   four runs A, B, C, D as the merge of X = merge(A, B) and Y = merge(C, D), X and Y never
//   written: a thread per multiple of the tile samples where each pair's merge crosses it; a thread
//   per tile boundary then finds where the merge of X and Y crosses it, first over the samples (two
//   loads a probe), then inside one sample's interval, each probe's searches of A and B and of C
//   and D spanning only the range its bounds leave; a block loads its four pieces, merges A's with
//   B's and C's with D's in shared memory, and those two into its outputs. Half the passes of CUB's
//   merge sort (8 instead of 16 at 2^28 keys); each costs 1.5 two-way passes with its searches,
//   so it gains from 2^26 keys (docs/perf-notes.md, issue 33).
// Against Algorithm 5 (merge-cuda), the same bottom-up idea with the parallelism kept at every
// width: a merge is split across blocks by its outputs instead of given to one thread.
#include <algorithm>
#include <array>
#include <string>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/sort/tiles.cuh"

namespace ema::sort {
namespace {

struct path_launch {
  int blocks = 0;
  int ways = 0;
  static constexpr launch_field fields[] = {
      {"blocks", "most blocks of a launch, each looping over tiles (ema: 0, a block per tile)", 0, 1 << 30},
      {"ways", "runs each merge pass merges: 2 or 4; 0: chosen by size (ema: 0, four from 2^26 keys, where it measured 9-12% faster on an H200)", 0,
       4, 2},
  };
  std::array<int*, 2> members() { return {&blocks, &ways}; }
};

// ---- four-way passes ----------------------------------------------------------------------------

/// Outputs a block of a four-way pass writes: 4096 four-byte keys, 2048 eight-byte ones (two
/// tiles of them in shared memory, 33 KiB either way).
template <class K>
constexpr int items4 = sizeof(K) > 4 ? 8 : 16;
template <class K>
constexpr int tile4 = tiles::threads* items4<K>;

/// Where the four-way merge crosses one output: x of the outputs before it come from X = merge(A,
/// B), of those `a` from A; of the others, `c` from C.
struct split4 {
  std::size_t x, a, c;
};

/// First, a thread per multiple of tile4 of the array finds where the two-way merge of its pair of
/// runs (A and B, or C and D) crosses it: `samples[m]`, how many of the pair's first outputs up to
/// m tile4 - its start come from its first run (one merge-path search each).
template <class K>
__global__ void pair_samples(const K* __restrict__ src, std::size_t n, std::size_t width, std::size_t* __restrict__ samples, std::size_t count) {
  const std::size_t m = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (m >= count) return;
  const std::size_t at = tiles::lesser(m * tile4<K>, n);
  const std::size_t pair = at / (2 * width) * (2 * width);
  const std::size_t a_len = tiles::lesser(width, n - pair), b_len = tiles::lesser(width, n - pair - a_len);
  samples[m] = tiles::split_at(src + pair, a_len, src + pair + a_len, b_len, at - pair);
}

/// One pair of runs seen as their merge (never written): the samples turn a search for where the
/// merge crosses any output into one inside the tile4 outputs around it.
template <class K>
struct merged_pair {
  const K* first;
  const K* second;
  std::size_t first_len, second_len;
  const std::size_t* samples;  ///< samples[w]: the split at w tile4 outputs

  /// How many of the merge's first `pos` outputs come from the first run.
  __device__ std::size_t split(std::size_t pos) const {
    constexpr std::size_t g = tile4<K>;
    const std::size_t len = first_len + second_len;
    if (pos >= len) return first_len;
    const std::size_t w = pos / g, at = w * g;
    const std::size_t s0 = samples[w];
    if (pos == at) return s0;
    const std::size_t end = tiles::lesser(at + g, len);
    const std::size_t s1 = end == len ? first_len : samples[w + 1];
    return s0 + tiles::split_at(first + s0, s1 - s0, second + (at - s0), (end - at) - (s1 - s0), pos - at);
  }
  /// The merge's m-th output (m < the pair's length); the first run's key first among equal keys,
  /// as cub::MergePath and cub::SerialMerge order them.
  __device__ K nth(std::size_t m) const {
    bool from_first = false;
    return key(m, split(m), from_first);
  }
  /// split(pos), known to lie in [lo, hi]: a merge-path search over that range of the whole runs.
  __device__ std::size_t split_within(std::size_t pos, std::size_t lo, std::size_t hi) const {
    if (pos > second_len && pos - second_len > lo) lo = pos - second_len;
    hi = tiles::lesser(hi, tiles::lesser(pos, first_len));
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (second[pos - 1 - mid] < first[mid])
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }
  /// The merge's m-th output given s = split(m), and whether it comes from the first run.
  __device__ K key(std::size_t m, std::size_t s, bool& from_first) const {
    from_first = s < first_len && (m - s >= second_len || !(second[m - s] < first[s]));
    return from_first ? first[s] : second[m - s];
  }
  /// The last of the merge's first `count` outputs (count >= 1), when `count` is a multiple of
  /// tile4: the greater of the two runs' last keys in it, two loads and no search.
  __device__ K last_of_aligned(std::size_t count) const {
    const std::size_t s = split(count);
    if (s == 0) return second[count - 1];
    if (s == count) return first[s - 1];
    const K a = first[s - 1], b = second[count - s - 1];
    return a < b ? b : a;
  }
};

/// The four runs of one group of a pass over runs of `width` keys (the last group's may be short
/// or empty), as the two merged pairs X and Y.
template <class K>
__device__ void group_pairs(const K* src, std::size_t n, std::size_t start, std::size_t width, const std::size_t* samples, merged_pair<K>& x,
                            merged_pair<K>& y) {
  std::size_t len[4], at = start;
  for (auto& l : len) {
    l = tiles::lesser(width, n - at);
    at += l;
  }
  x = {src + start, src + start + len[0], len[0], len[1], samples + start / tile4<K>};
  const std::size_t y_start = start + len[0] + len[1];
  y = {src + y_start, src + y_start + len[2], len[2], len[3], samples + y_start / tile4<K>};
}

/// The split of the group's merge of X and Y at output d, a multiple of tile4 but at the array's
/// end (merge path, X's key first among equal keys): first over the outputs of X at multiples of
/// tile4, where a probe is two loads and a sample (X's output there, and Y's just before the
/// matching multiple), then inside the tile4 outputs left, where each probe searches A and B, and
/// C and D, only between the splits known at the ends of the range still open.
template <class K>
__device__ split4 split4_at(const merged_pair<K>& x, const merged_pair<K>& y, std::size_t d) {
  constexpr std::size_t g = tile4<K>;
  const std::size_t x_len = x.first_len + x.second_len, y_len = y.first_len + y.second_len;
  const std::size_t lo = d > y_len ? d - y_len : 0, hi = tiles::lesser(d, x_len);
  // Y's output d - 1 - i comes before X's output i: true from the split on (cub::MergePath's test).
  const std::size_t j_first = (lo + g - 1) / g, j_end = hi == 0 ? 0 : (hi - 1) / g + 1;
  std::size_t jl = j_first, jh = j_end > j_first ? j_end : j_first;
  while (jl < jh) {
    const std::size_t j = jl + (jh - jl) / 2;
    if (y.last_of_aligned(d - j * g) < x.nth(j * g))
      jh = j;
    else
      jl = j + 1;
  }
  // Inside: the answer i in [l, h], with each pair's split known at both ends (X's at l and h, Y's
  // at the matching prefixes d - h and d - l). A probe's splits lie between them, so each probe's
  // two searches span only what is left, and the ends move with the probe (the split one further
  // on is the probe's own plus whether its key came from the first run).
  std::size_t l = jl > j_first ? (jl - 1) * g + 1 : lo, h = jl < j_end ? jl * g : hi;
  std::size_t x_at_l = x.split(l), x_at_h = x.split(h), y_at_dh = y.split(d - h), y_at_dl = y.split(d - l);
  while (l < h) {
    const std::size_t i = l + (h - l) / 2, q = d - 1 - i;
    const std::size_t sx = x.split_within(i, x_at_h > x_at_l + (h - i) ? x_at_h - (h - i) : x_at_l, tiles::lesser(x_at_h, x_at_l + (i - l)));
    const std::size_t sy =
        y.split_within(q, y_at_dl > y_at_dh + (d - l - q) ? y_at_dl - (d - l - q) : y_at_dh, tiles::lesser(y_at_dl, y_at_dh + (q - (d - h))));
    bool x_first = false, y_first = false;
    const K xi = x.key(i, sx, x_first), yq = y.key(q, sy, y_first);
    if (yq < xi) {
      h = i;
      x_at_h = sx;
      y_at_dh = sy + y_first;  // Y's split at d - i = q + 1
    } else {
      l = i + 1;
      x_at_l = sx + x_first;
      y_at_dl = sy;  // Y's split at d - l = q
    }
  }
  return {l, x_at_l, y_at_dl};
}

/// A thread per boundary of the pass's output tiles (tile4 keys each): its split within its group.
template <class K>
__global__ void merge4_splits(const K* __restrict__ src, std::size_t n, std::size_t width, const std::size_t* __restrict__ samples,
                              split4* __restrict__ splits, std::size_t tiles) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const std::size_t at = tiles::lesser(t * tile4<K>, n);
  const std::size_t start = at / (4 * width) * (4 * width);
  merged_pair<K> x, y;
  group_pairs(src, n, start, width, samples, x, y);
  splits[t] = split4_at(x, y, at - start);
}

/// Shared memory of a four-way merge block: the four pieces back to back, then the merged X and Y
/// pieces; each with room for the keys cub::SerialMerge reads past a run's end (up to items4 of
/// them) and the padding of tiles::padded.
template <class K>
struct merge4_storage {
  static constexpr int slots = tiles::padded(tile4<K> + items4<K> + 2) + 1;
  K in[slots];
  K xy[slots];
};

/// One thread's outputs [pos, pos + count) of the merge of the runs staged at first[0, l1) and
/// first[l1, l1 + l2), into `out` at pos + shift.
template <class K>
__device__ __forceinline__ void merge_piece(const tiles::padded_keys<K>& first, int l1, int l2, int diag, int count, K* out, int shift) {
  const int k1 = cub::MergePath(first, first + l1, l1, l2, diag, tiles::less_than{});
  K merged[items4<K>];
  int from[items4<K>];
  cub::SerialMerge(first, k1, l1 + diag - k1, l1 - k1, l2 - (diag - k1), merged, from, tiles::less_than{});
#pragma unroll
  for (int i = 0; i < items4<K>; ++i)
    if (i < count) out[tiles::padded(shift + diag + i)] = merged[i];
}

template <class K>
__global__ void __launch_bounds__(tiles::threads)
    merge4_pass(const K* __restrict__ src, K* __restrict__ dst, std::size_t n, std::size_t width, const split4* __restrict__ splits) {
  __shared__ merge4_storage<K> s;
  constexpr int items = items4<K>;
  for (std::size_t t = blockIdx.x; t * tile4<K> < n; t += gridDim.x) {
    const std::size_t first = t * tile4<K>, last = tiles::lesser(first + tile4<K>, n);
    const std::size_t start = first / (4 * width) * (4 * width);
    std::size_t len4[4], at = start;
    for (auto& l : len4) {
      l = tiles::lesser(width, n - at);
      at += l;
    }
    const K* run[4] = {src + start, src + start + len4[0], src + start + len4[0] + len4[1], src + start + len4[0] + len4[1] + len4[2]};
    const split4 lo = splits[t];
    // A tile never straddles two groups (4 width is a multiple of tile4); at the group's end the
    // next split is measured from the next group: all of X, A and C.
    const split4 hi = last == tiles::lesser(start + 4 * width, n) ? split4{len4[0] + len4[1], len4[0], len4[2]} : splits[t + 1];
    const std::size_t d0 = first - start, d1 = last - start;
    const int len = static_cast<int>(d1 - d0);
    const int n_x = static_cast<int>(hi.x - lo.x);
    const int piece[4] = {static_cast<int>(hi.a - lo.a), n_x - static_cast<int>(hi.a - lo.a), static_cast<int>(hi.c - lo.c),
                          len - n_x - static_cast<int>(hi.c - lo.c)};
    const K* from[4] = {run[0] + lo.a, run[1] + (lo.x - lo.a), run[2] + lo.c, run[3] + ((d0 - lo.x) - lo.c)};
#pragma unroll
    for (int r = 0, at = 0; r < 4; at += piece[r++])
      for (int i = static_cast<int>(threadIdx.x); i < piece[r]; i += tiles::threads) s.in[tiles::padded(at + i)] = from[r][i];
    __syncthreads();
    // A's piece with B's into X's, C's with D's into Y's: the thread's outputs of the two merges
    // laid end to end, in two parts where they cross from X's into Y's.
    const int n_y = len - n_x;
    for (int pos = min(static_cast<int>(threadIdx.x) * items, len), end = min(pos + items, len); pos < end;) {
      const bool in_x = pos < n_x;
      const int base = in_x ? 0 : n_x, count = min(end, in_x ? n_x : len) - pos;
      const tiles::padded_keys<K> runs{s.in, in_x ? 0 : n_x};
      merge_piece(runs, in_x ? piece[0] : piece[2], in_x ? piece[1] : piece[3], pos - base, count, s.xy, base);
      pos += count;
    }
    __syncthreads();
    // X's piece with Y's: the block's outputs, through shared memory so the stores coalesce.
    const int diag = min(static_cast<int>(threadIdx.x) * items, len);
    if (diag < len) merge_piece(tiles::padded_keys<K>{s.xy, 0}, n_x, n_y, diag, min(items, len - diag), s.in, 0);
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.x); i < len; i += tiles::threads) dst[first + i] = s.in[tiles::padded(i)];
    __syncthreads();
  }
}

template <class K>
struct merge_path {
  static output run(const input& in, run_context& ctx) {
    auto l = ctx.launch(path_launch{});
    if (l.ways != 0 && l.ways != 2 && l.ways != 4) throw usage_error("launch.ways must be 0, 2 or 4, got " + std::to_string(l.ways));
    if (l.ways == 0) l.ways = in.n >= (std::size_t{1} << 26) ? 4 : 2;
    ctx.note("ways", l.ways);
    int passes = 0;
    auto o = run_on_device<K>(in, ctx, [&](cuda::session& gpu, device_keys<K>& d) {
      K* buffer = gpu.alloc<K>(d.n);
      const std::size_t tile_count = tiles::merge_blocks(d.n), tile4_count = ceil_div(d.n, static_cast<std::size_t>(tile4<K>));
      std::size_t* splits = l.ways == 2 ? gpu.alloc<std::size_t>(tile_count + 1) : nullptr;
      split4* splits4 = l.ways == 4 ? gpu.alloc<split4>(tile4_count + 1) : nullptr;
      std::size_t* samples = l.ways == 4 ? gpu.alloc<std::size_t>(tile4_count + 1) : nullptr;
      return [&, buffer, splits, splits4, samples, tile_count, tile4_count]() -> const K* {
        if (d.n == 0) return d.keys;
        std::size_t grid = tiles::merge_blocks(d.n);
        if (l.blocks > 0) grid = std::min<std::size_t>(grid, static_cast<std::size_t>(l.blocks));
        const auto blocks = static_cast<unsigned>(std::min<std::size_t>(grid, 0x7fffffff));
        {
          auto part = gpu.kernel_part("tiles");
          tiles::sort_tiles<K><<<blocks, tiles::threads, 0, gpu.stream()>>>(d.keys, buffer, d.n);
          EMA_CUDA_CHECK_LAUNCH();
        }
        K* from = buffer;
        K* to = d.keys;
        // One part for all the passes: a part per launch put 50-60 µs of event gaps into 1.1 ms at 2^24.
        auto part = gpu.kernel_part("merges");
        if (l.ways == 4) {
          std::size_t grid4 = tile4_count;
          if (l.blocks > 0) grid4 = std::min<std::size_t>(grid4, static_cast<std::size_t>(l.blocks));
          const auto blocks4 = static_cast<unsigned>(std::min<std::size_t>(grid4, 0x7fffffff));
          for (std::size_t width = tiles::tile_keys; width < d.n; width *= 4) {
            const auto search_blocks = static_cast<unsigned>((tile4_count + 256) / 256);
            pair_samples<K><<<search_blocks, 256, 0, gpu.stream()>>>(from, d.n, width, samples, tile4_count + 1);
            EMA_CUDA_CHECK_LAUNCH();
            merge4_splits<K><<<search_blocks, 256, 0, gpu.stream()>>>(from, d.n, width, samples, splits4, tile4_count);
            EMA_CUDA_CHECK_LAUNCH();
            merge4_pass<K><<<blocks4, tiles::threads, 0, gpu.stream()>>>(from, to, d.n, width, splits4);
            EMA_CUDA_CHECK_LAUNCH();
            std::swap(from, to);
            ++passes;
          }
          return from;
        }
        for (std::size_t width = tiles::tile_keys; width < d.n; width *= 2) {
          tiles::merge_splits<K><<<static_cast<unsigned>((tile_count + 256) / 256), 256, 0, gpu.stream()>>>(from, d.n, width, splits, tile_count);
          EMA_CUDA_CHECK_LAUNCH();
          tiles::merge_pass<K><<<blocks, tiles::threads, 0, gpu.stream()>>>(from, to, d.n, width, splits);
          EMA_CUDA_CHECK_LAUNCH();
          std::swap(from, to);
          ++passes;
        }
        return from;
      };
    });
    ctx.note("passes", passes);
    return o;
  }
};

output run(const input& in, run_context& ctx) { return run_typed<merge_path>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_merge_path, ema::sort::kit::variant<&ema::sort::run>({
                                 .name = "merge-path",
                                 .algorithm = "merge",
                                 .backend = ema::backend::cuda,
                                 .role = ema::variant_role::ours,
                                 .description = "ours: 4096-key tiles sorted by blocks, then merge passes split across blocks by merge path",
                                 .provenance = "ours (bottom-up like Algorithm 5 of 004_96c7929830a11cf7.txt, parallel at every width)",
                                 .launch = ema::sort::path_launch::fields,
                             }));
