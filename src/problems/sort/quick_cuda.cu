// sort / quick-cuda — Algorithm 3 of Nogueira, 004_96c7929830a11cf7.txt (Quicksort CUDA): a host loop that
// runs the `quickSort` and `arrangeQueueAndPivot` kernels over all the keys, alternating the lists
// (list1/list2) and their queues (q/q_copy) each iteration, until no part has more than one key
// (`*done`, read back by the host after each iteration).
// How the listing and its text were read (the listing gives the calls, not the kernels):
// - q is "a vector of indices", one per key: the first position of the part the key belongs to
//   (or none once the key is in its final place), so a part is named by where it starts, and its
//   end, its pivot and its three counters are kept at that index (a descriptor, double-buffered
//   like the queues);
// - quickSort, a thread per key: compares the key with its part's pivot (the key at the part's
//   middle position) and writes it into the other list, the lesser from the part's start upwards
//   and the greater from its end downwards, taking room by atomic adds on the part's counters
//   (aggregated over a warp's keys of the same part and class, one atomic per group); a key equal
//   to the pivot is saved in pivot_arr ("when a thread operates on an element selected as pivot,
//   it is saved in pivot_arr and handled by the second kernel") — every key equal to the pivot,
//   so repeated keys are settled at once; keys already in place are copied across;
// - arrangeQueueAndPivot, a thread per key: moves the saved pivots to the middle of their part, to
//   their final place; gives each key of the lesser and greater sides its new part (a side of at
//   most one key is final); the first thread of each new part writes its descriptor, with the new
//   pivot (its middle key); any new part clears *done.
// The atomic adds scatter a part's keys in whatever order the warps arrive, so after the first
// iteration a part's middle key is a random one of its keys: the iterations are the depth of a
// randomised quicksort, about 2 log2 n on any input (the first pivot of an organ pipe is its
// largest key, which costs one extra iteration). Every iteration reads and writes all n keys.
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/sort/device.cuh"

namespace ema::sort {
namespace {

struct quick_launch {
  int block = 256, blocks = 0;
  static constexpr launch_field fields[] = {
      {"block", "threads per block (blockSize), whole warps", 32, 1024, 32},
      {"blocks", "blocks (numBlocks; ema: 16 per multiprocessor, each thread over several keys)", 1, 1 << 30},
  };
  std::array<int*, 2> members() { return {&block, &blocks}; }
};

constexpr std::uint32_t final_place = 0xffffffffu;  ///< q[i] of a key already in its place

/// The parts of one iteration, indexed by a part's first position.
template <class K>
struct parts {
  std::uint32_t* end;
  K* pivot;
  std::uint32_t* less;
  std::uint32_t* equal;
  std::uint32_t* greater;
};

template <class K>
__global__ void first_part(const K* list, std::uint32_t size, parts<K> p) {
  p.end[0] = size;
  p.pivot[0] = list[size / 2];
  p.less[0] = p.equal[0] = p.greater[0] = 0;
}

template <class K>
__global__ void quick_sort(std::uint32_t size, const K* list_in, K* list_out, const std::uint32_t* q, K* pivot_arr, parts<K> p) {
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  // Whole warps step together, so every lane takes part in the warp's collective operations.
  for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x - lane; base < size; base += stride) {
    const std::uint64_t i = base + lane;
    const bool valid = i < size;
    const std::uint32_t s = valid ? q[i] : final_place;
    const K key = valid ? list_in[i] : K{};
    int cls = 3;  // 0 less, 1 equal, 2 greater, 3 nothing to do
    if (valid && s == final_place)
      list_out[i] = key;
    else if (valid) {
      const K pivot = p.pivot[s];
      cls = key < pivot ? 0 : key > pivot ? 2 : 1;
    }
    std::uint32_t* counter = cls == 0 ? p.less : cls == 1 ? p.equal : p.greater;
    const std::uint32_t at = take_room(counter + (cls == 3 ? 0 : s), (static_cast<std::uint64_t>(s) << 2) | static_cast<unsigned>(cls), cls != 3);
    if (cls == 3) continue;
    if (cls == 0)
      list_out[s + at] = key;
    else if (cls == 2)
      list_out[p.end[s] - 1 - at] = key;
    else
      pivot_arr[s + at] = key;
  }
}

template <class K>
__global__ void arrange_queue_and_pivot(std::uint32_t size, const std::uint32_t* q, std::uint32_t* q_next, K* list, const K* pivot_arr, parts<K> p,
                                        parts<K> next, int* done) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < size; i += stride) {
    const std::uint32_t s = q[i];
    if (s == final_place) {
      q_next[i] = final_place;
      continue;
    }
    const std::uint32_t e = p.end[s], less = p.less[s], equal = p.equal[s];
    const std::uint32_t at = static_cast<std::uint32_t>(i);
    std::uint32_t child = final_place, child_end = 0;
    if (at < s + less) {
      if (less > 1) child = s, child_end = s + less;
    } else if (at < s + less + equal) {
      list[at] = pivot_arr[s + (at - s - less)];
    } else if (e - (s + less + equal) > 1) {
      child = s + less + equal, child_end = e;
    }
    q_next[i] = child;
    if (child != final_place && at == child) {
      next.end[child] = child_end;
      next.pivot[child] = list[child + (child_end - child) / 2];
      next.less[child] = next.equal[child] = next.greater[child] = 0;
      *done = 0;
    }
  }
}

template <class K>
struct algorithm_3 {
  static output run(const input& in, run_context& ctx) {
    auto l = ctx.launch(quick_launch{});
    if (l.blocks == 0) {
      int sms = 0;
      EMA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
      l.blocks = 16 * sms;
      ctx.note("launch.blocks", l.blocks);
    }
    std::int64_t iterations = 0;
    auto o = run_on_device<K>(in, ctx, [&](cuda::session& gpu, device_keys<K>& d) {
      const std::size_t n = d.n;
      K* list2 = gpu.alloc<K>(n);
      K* pivot_arr = gpu.alloc<K>(n);
      std::uint32_t* q = gpu.alloc<std::uint32_t>(n);
      std::uint32_t* q_copy = gpu.alloc<std::uint32_t>(n);
      std::array<parts<K>, 2> desc{};
      for (auto& p : desc) {
        p.end = gpu.alloc<std::uint32_t>(n);
        p.pivot = gpu.alloc<K>(n);
        p.less = gpu.alloc<std::uint32_t>(n);
        p.equal = gpu.alloc<std::uint32_t>(n);
        p.greater = gpu.alloc<std::uint32_t>(n);
      }
      int* done = gpu.alloc<int>(1);
      return [&, list2, pivot_arr, q, q_copy, desc, done]() mutable -> const K* {
        K* list1 = d.keys;
        if (d.n <= 1) return list1;
        const auto size = static_cast<std::uint32_t>(d.n);
        gpu.fill_bytes(q, 0, d.n);  // every key in the part that starts at 0
        first_part<K><<<1, 1, 0, gpu.stream()>>>(list1, size, desc[0]);
        EMA_CUDA_CHECK_LAUNCH();
        const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(static_cast<std::size_t>(l.blocks), (d.n + l.block - 1) / l.block));
        int host_done = 0;
        while (!host_done) {
          gpu.write(done, 1);
          quick_sort<K><<<blocks, l.block, 0, gpu.stream()>>>(size, list1, list2, q, pivot_arr, desc[0]);
          EMA_CUDA_CHECK_LAUNCH();
          arrange_queue_and_pivot<K><<<blocks, l.block, 0, gpu.stream()>>>(size, q, q_copy, list2, pivot_arr, desc[0], desc[1], done);
          EMA_CUDA_CHECK_LAUNCH();
          host_done = gpu.read(done);
          std::swap(list1, list2);
          std::swap(q, q_copy);
          std::swap(desc[0], desc[1]);
          ++iterations;
          if (iterations > static_cast<std::int64_t>(d.n)) throw std::logic_error("quick-cuda: more iterations than keys");
        }
        return list1;
      };
    });
    ctx.note("iterations", iterations);
    return o;
  }
};

output run(const input& in, run_context& ctx) { return run_typed<algorithm_3>(in, ctx); }

const char* too_many(const param_set&, std::uint64_t n) {
  return n >= final_place ? "not applicable: the part indices are 32-bit (n < 2^32 - 1)" : nullptr;
}

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_quick_cuda,
            ema::sort::kit::variant<&ema::sort::run>({
                .name = "quick-cuda",
                .algorithm = "quick",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::source,
                .description = "Algorithm 3: a host loop of the quickSort and arrangeQueueAndPivot kernels over every key until no part is left",
                .provenance = "Algorithm 3 of 004_96c7929830a11cf7.txt",
                .launch = ema::sort::quick_launch::fields,
                .not_applicable = &ema::sort::too_many,
            }));
