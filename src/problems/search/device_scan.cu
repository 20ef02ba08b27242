// The scan kernel of device_scan.cuh (ours; see the header for the design).
#include <algorithm>
#include <string>

#include "problems/search/device_scan.cuh"

namespace ema::search {
namespace {

// Tiles between two reads of the best index (a block may scan this many tiles past a find).
constexpr unsigned check_every = 4;

template <int Unroll>
__global__ void __launch_bounds__(256)
    scan_kernel(const std::uint32_t* __restrict__ data, unsigned long long n, std::uint32_t key, unsigned long long* best) {
  const unsigned long long n_vec = n / 4;
  const uint4* __restrict__ v = reinterpret_cast<const uint4*>(data);
  const unsigned tile = blockDim.x * Unroll;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * tile;
  unsigned long long known = no_index;
  unsigned iteration = 0;
  for (unsigned long long base = static_cast<unsigned long long>(blockIdx.x) * tile; base < n_vec; base += stride, ++iteration) {
    uint4 x[Unroll];
    if (base + tile <= n_vec) {
#pragma unroll
      for (int u = 0; u < Unroll; ++u) x[u] = __ldcs(v + base + u * blockDim.x + threadIdx.x);
    } else {
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const auto i = base + u * blockDim.x + threadIdx.x;
        x[u] = i < n_vec ? __ldcs(v + i) : make_uint4(~key, ~key, ~key, ~key);
      }
    }
    // Read the best index while this tile's loads are in flight, not before them, and only every
    // few tiles: every warp of the grid reads the same address, so the reads all land on one L2
    // slice, which saturates if each tile asks.
    if (iteration % check_every == 0) known = *reinterpret_cast<volatile unsigned long long*>(best);
    unsigned long long found = no_index;
    // From the last load to the first, so the lowest matching element wins.
#pragma unroll
    for (int u = Unroll - 1; u >= 0; --u) {
      const unsigned long long e = 4 * (base + u * blockDim.x + threadIdx.x);
      if (x[u].w == key) found = e + 3;
      if (x[u].z == key) found = e + 2;
      if (x[u].y == key) found = e + 1;
      if (x[u].x == key) found = e;
    }
    if (found != no_index) atomicMin(best, found);
    if (known < 4 * (base + stride)) break;  // nothing this block still holds can be lower
  }
  // The last 0-3 elements that do not fill a vector.
  const unsigned long long tail = 4 * n_vec + threadIdx.x;
  if (blockIdx.x == gridDim.x - 1 && tail < n && data[tail] == key) atomicMin(best, tail);
}

}  // namespace

scan_config choose_scan_config(const gpu::device_info& d, std::uint64_t n) {
  scan_config c;
  c.threads = 256;
  const std::uint64_t tile_elements = 4ull * c.threads * scan_config::unroll;
  const std::uint64_t tiles = std::max<std::uint64_t>(1, ceil_div(n, tile_elements));
  // Resident blocks as the occupancy calculator gives them for this kernel's registers, not the
  // thread limit alone (40 registers allow 6 blocks of 256 per SM, not 8).
  int per_sm = 0;
  EMA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_kernel<scan_config::unroll>, c.threads, 0));
  const std::uint64_t resident = static_cast<std::uint64_t>(d.sm_count) * static_cast<std::uint64_t>(std::max(1, per_sm));
  // As few blocks as give every block the same number of tiles (to within one) in as few waves
  // as the resident limit allows, so no block is left with a long tail alone.
  const std::uint64_t waves = ceil_div(tiles, resident);
  c.blocks = static_cast<int>(ceil_div(tiles, waves));
  return c;
}

void launch_scan(const scan_config& c, const std::uint32_t* data, std::uint64_t n, std::uint32_t key, unsigned long long* best, cudaStream_t stream) {
  scan_kernel<scan_config::unroll><<<c.blocks, c.threads, 0, stream>>>(data, n, key, best);
  EMA_CUDA_CHECK_LAUNCH();
}

}  // namespace ema::search
