// search on the GPU: our bandwidth-bound scan kernel (used by the `cuda` and `cuda-multi`
// variants) and the host flow every single-device variant shares: allocate, copy the array in,
// search, copy the answer back, free, each phase timed (Nobre et al., 001_9fea77a744af8951.txt section 3: the
// total time includes allocation, copies and synchronisation; the kernel time is the search alone).
//
// The scan kernel: the array is cut into tiles of `threads * Unroll` 16-byte vectors dealt to the
// blocks round-robin, so the grid sweeps memory as one wavefront; the grid is sized so every block
// gets the same number of tiles to within one. Each thread keeps Unroll independent 16-byte loads
// in flight, coalesced across the warp. While a tile's loads are in flight the thread also reads the
// best index found so far; once that lies before the block's next tile, nothing the block could
// still find is lower, so it stops. With the key absent that check is one L2-resident load per warp
// per tile, overlapped with the data, and the kernel is a pure stream of reads.
#pragma once

#include <array>
#include <cstdint>
#include <cuda_runtime.h>
#include <optional>
#include <string>

#include "core/launch.hpp"
#include "core/run_context.hpp"
#include "measure/cuda/check.cuh"
#include "measure/cuda/session.cuh"
#include "measure/gpu.hpp"
#include "problems/search/search.hpp"

namespace ema::search {

/// "Not found" in the device-side best index.
constexpr unsigned long long no_index = ~0ull;

/// The launch geometry of the scan kernel, chosen from the device's properties and n
/// (core/launch.hpp: each field a note and a --param launch.<field>).
struct scan_config {
  int blocks = 1;
  int threads = 256;
  static constexpr int unroll = 8;  ///< 16-byte loads in flight per thread (a template argument)
  static constexpr launch_field fields[] = {
      {"blocks", "blocks of the grid (ema: as few as give every block the same number of tiles in the fewest waves)"},
      {"threads", "threads per block (ema: 256, the kernel's launch bound)", 32, 256, 32},
  };
  std::array<int*, 2> members() { return {&blocks, &threads}; }
};

scan_config choose_scan_config(const gpu::device_info& device, std::uint64_t n);

/// Launches the scan over data[0, n) on `stream`; `best` must hold no_index (or a bound) beforehand.
void launch_scan(const scan_config& c, const std::uint32_t* data, std::uint64_t n, std::uint32_t key, unsigned long long* best, cudaStream_t stream);

/// The shared single-device flow (measure/cuda/session.cuh): the array in (`h2d`, with the best
/// index set to "none"), `search(session, data, n, key, best)` enqueues the search (`kernel`), the
/// answer back (`d2h`). `search` returns the answer itself when it has it on the host already (a
/// library call that synchronises), or nullopt, and the flow then copies `best` back.
template <class Search>
output run_on_device(const input& in, run_context& ctx, Search&& search) {
  cuda::session gpu(ctx);
  const std::uint64_t n = in.data.size();
  auto* data = gpu.alloc<std::uint32_t>(n);
  auto* best = gpu.alloc<unsigned long long>(1);
  auto* answer = gpu.results<unsigned long long>(1);
  {
    auto h2d = gpu.phase("h2d");
    gpu.upload(data, in.data.data(), n);
    gpu.fill_bytes(best, 0xff, 1);
  }
  std::optional<output> direct;
  {
    auto kernel = gpu.phase("kernel");
    direct = search(gpu, data, n, in.key, best);
  }
  if (!direct) {
    auto d2h = gpu.phase("d2h");
    gpu.download(answer, best, 1);
  }
  gpu.finish();
  if (direct) return *direct;
  return *answer == no_index ? -1 : static_cast<output>(*answer);
}

}  // namespace ema::search
