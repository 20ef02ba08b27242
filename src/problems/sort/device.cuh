// sort on the GPU: the flow every CUDA variant shares, on the GPU session (measure/cuda/session.cuh).
// The variant's plan allocates what it needs (timed as `alloc`) and returns its sorting step; the
// keys go in by one copy (`h2d`), the step runs on the session's stream (`kernel`: everything from
// the first launch to the last key in place, host loops and device-side launches included), and the
// sorted keys come back into the session's page-locked results region (`d2h`).
// The study (Nogueira, 004_96c7929830a11cf7.txt) times the sort; ema stores the copies and the allocation
// beside it, so kernel time and total time are both in the database.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>
#include <type_traits>

#include "measure/cuda/check.cuh"
#include "measure/cuda/session.cuh"
#include "problems/sort/sort.hpp"

namespace ema::sort {

/// The keys of a run on the device.
template <class K>
struct device_keys {
  K* keys = nullptr;  ///< the input, copied in before the sorting step runs
  std::size_t n = 0;
};

/// The run: `plan(gpu, d)` allocates and returns the sorting step, a callable that enqueues the sort
/// on gpu.stream() (or runs a host loop over it) and returns the device address of the sorted keys
/// (d.keys or a buffer of its own). With `memory::managed` the keys live in unified memory (the copy
/// in lands there; the kernels page it over). `after(gpu)` runs once the keys are back, untimed,
/// before the buffers go (to read counters a variant keeps on the device).
enum class memory { device, managed };
struct nothing_after {
  void operator()(cuda::session&) const {}
};
template <class K, memory M = memory::device, class Plan, class After = nothing_after>
output run_on_device(const input& in, run_context& ctx, Plan&& plan, After&& after = {}) {
  cuda::session gpu(ctx);
  device_keys<K> d;
  d.n = in.n;
  d.keys = M == memory::managed ? gpu.alloc_managed<K>(in.n) : gpu.alloc<K>(in.n);
  auto step = plan(gpu, d);
  K* result = gpu.results<K>(in.n);
  {
    auto h2d = gpu.phase("h2d");
    gpu.upload(d.keys, in.keys<K>(), in.n);
  }
  const K* sorted = d.keys;
  {
    auto kernel = gpu.phase("kernel");
    sorted = step();
  }
  {
    auto d2h = gpu.phase("d2h");
    gpu.download(result, sorted, in.n);
  }
  gpu.publish();
  after(gpu);
  gpu.finish();
  output o;
  o.keys = result;
  return o;
}

/// A key that sorts after every key a run can hold (the inputs are finite): padding for block sorts.
template <class K>
__host__ __device__ constexpr K greatest_key() {
  if constexpr (std::is_floating_point_v<K>)
    return __builtin_huge_valf();
  else
    return ~K(0);
}

/// A warp-aggregated atomicAdd (the GPU quicksorts' scatter): the active lanes of a warp that pass
/// the same `group` (and so the same `counter`) take consecutive slots of *counter with one atomic
/// by their lowest lane; returns each active lane's slot, in lane order. Every lane of the warp must
/// call it (inactive ones with active = false; their counter is not touched).
template <class T>
__device__ __forceinline__ T take_room(T* counter, std::uint64_t group, bool active) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned peers = __match_any_sync(0xffffffffu, active ? group : ~std::uint64_t{0});
  const int leader = __ffs(peers) - 1;
  T base = 0;
  if (active && static_cast<int>(lane) == leader) base = atomicAdd(counter, static_cast<T>(__popc(peers)));
  base = __shfl_sync(0xffffffffu, base, leader);
  return base + static_cast<T>(__popc(peers & ((1u << lane) - 1)));
}

}  // namespace ema::sort
