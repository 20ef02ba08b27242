// The device launches of merge-cdp alone (issue 16's target: device launches at most 10% of a CDP
// variant's time). merge-cdp (src/problems/sort/merge_cdp.cu, the study's CUDA-DP mergesort after
// Nogueira, 004_96c7929830a11cf7.txt, Algorithm 6) is a tree of grids: a node above the batches (one thread)
// launches its two halves fire-and-forget and a merge grid of merge_blocks(hi - lo) blocks as its
// tail launch; a batch is a grid of a block per leaf whose tail launch starts a chain of merge
// grids, one per level. This program launches that same tree (the same shape from
// cdp::merge_tree, the same grid and block sizes, the same streams) with no work in any grid, and
// times it with events on the host's stream, so its time is what the launches, the tail-launch
// waits and the grids' scheduling cost merge-cdp at that n.
// Usage: ema_bench_cdp_launch_tree [log2 n ...]   (default 20 22 24 26 28); 2 warm-up trees, then
// the median of 7. Prints one line per n: n, levels, launches counted, ms, µs per launch.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "problems/sort/cdp.cuh"
#include "problems/sort/tiles.cuh"

namespace {

using ema::sort::tiles::merge_blocks;
using ema::sort::tiles::threads;

namespace tree = ema::sort::cdp::merge_tree;

__global__ void empty_merge() {}

__global__ void __launch_bounds__(threads) empty_level(std::size_t len, int batch, int depth, int levels, ema::sort::cdp::stats* st) {
  if (depth > batch && blockIdx.x == 0 && threadIdx.x == 0) {
    empty_level<<<tree::level_blocks(len, depth - 1 - batch), threads, 0, cudaStreamTailLaunch>>>(len, batch, depth - 1, levels, st);
    ema::sort::cdp::launched(st, batch + levels - depth);
  }
}

__global__ void __launch_bounds__(threads) empty_batch(std::size_t len, int batch, int levels, ema::sort::cdp::stats* st) {
  if (levels > batch && blockIdx.x == 0 && threadIdx.x == 0) {
    empty_level<<<tree::level_blocks(len, levels - 1 - batch), threads, 0, cudaStreamTailLaunch>>>(len, batch, levels - 1, levels, st);
    ema::sort::cdp::launched(st, batch);
  }
}

__global__ void empty_node(std::size_t lo, std::size_t hi, int depth, int levels, ema::sort::cdp::stats* st) {
  const int batch = tree::batch_depth(levels);
  const std::size_t mid = lo + (hi - lo) / 2;
  if (depth + 1 == batch) {
    const auto leaves = static_cast<unsigned>(std::size_t{1} << (levels - batch));
    empty_batch<<<leaves, threads, 0, cudaStreamFireAndForget>>>(mid - lo, batch, levels, st);
    ema::sort::cdp::launched(st, depth);
    empty_batch<<<leaves, threads, 0, cudaStreamFireAndForget>>>(hi - mid, batch, levels, st);
    ema::sort::cdp::launched(st, depth);
  } else {
    empty_node<<<1, 1, 0, cudaStreamFireAndForget>>>(lo, mid, depth + 1, levels, st);
    ema::sort::cdp::launched(st, depth);
    empty_node<<<1, 1, 0, cudaStreamFireAndForget>>>(mid, hi, depth + 1, levels, st);
    ema::sort::cdp::launched(st, depth);
  }
  empty_merge<<<static_cast<unsigned>(merge_blocks(hi - lo)), threads, 0, cudaStreamTailLaunch>>>();
  ema::sort::cdp::launched(st, depth);
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "cdp_launch_tree: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> logs;
  for (int i = 1; i < argc; ++i) logs.push_back(std::atoi(argv[i]));
  if (logs.empty()) logs = {20, 22, 24, 26, 28};
  ema::sort::cdp::stats* st = nullptr;
  check(cudaMalloc(&st, sizeof *st), "cudaMalloc");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::printf("n\tlevels\tlaunches\tms\tus_per_launch\n");
  for (const int lg : logs) {
    if (lg < 0 || lg > 40) {
      std::fprintf(stderr, "cdp_launch_tree: log2 n must be 0..40, not %d\n", lg);
      return 2;
    }
    const std::size_t n = std::size_t{1} << lg;
    const int levels = tree::levels(n);
    const std::size_t expected = tree::launches(levels);
    ema::sort::cdp::reserve_launches(expected + 64);
    std::vector<float> ms;
    ema::sort::cdp::stats s{};
    for (int rep = 0; rep < 9; ++rep) {
      check(cudaMemsetAsync(st, 0, sizeof *st, stream), "cudaMemsetAsync");
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      if (tree::batch_depth(levels) == 0)
        empty_batch<<<1u << levels, threads, 0, stream>>>(n, 0, levels, st);
      else
        empty_node<<<1, 1, 0, stream>>>(0, n, 0, levels, st);
      check(cudaGetLastError(), "launch");
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float t = 0;
      check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
      check(cudaMemcpy(&s, st, sizeof s, cudaMemcpyDeviceToHost), "cudaMemcpy");
      if (s.failures || s.launches != expected) {
        std::fprintf(stderr, "cdp_launch_tree: n = 2^%d: %llu launches counted, %zu expected, %u failed (%s)\n", lg, s.launches, expected, s.failures,
                     cudaGetErrorString(static_cast<cudaError_t>(s.error)));
        return 1;
      }
      if (rep >= 2) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const float median = ms[ms.size() / 2];
    std::printf("2^%d\t%d\t%llu\t%.3f\t%.3f\n", lg, levels, s.launches, median, s.launches ? 1000.0 * median / static_cast<double>(s.launches) : 0.0);
  }
  return 0;
}
