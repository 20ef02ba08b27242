// rqa / motif-cuda — ours: the motif estimator of motif.hpp on the GPU. A round's 100 batches are the
// grid's y dimension; each thread draws samples k = its index, + the grid's width, ... of its batch
// with draw_motif (the very code motif-seq runs, so the same cells and the same counts), keeps its
// seven counts in registers, and a warp's sums go to the batch's counters by one atomic each. The
// diagonal lines drawn through their starts go to a device histogram (lengths above `cap` to a
// list). Rounds are drawn as in motif-seq (run_motif: until the target relative error).
#include <algorithm>
#include <array>

#include "core/registry.hpp"
#include "problems/rqa/device.cuh"
#include "problems/rqa/motif.hpp"

namespace ema::rqa {
namespace {

constexpr unsigned block = 256;

/// Each round's grid: `blocks` blocks per batch (the grid's x) times the 100 batches (its y), of
/// `threads` threads (core/launch.hpp).
struct motif_launch {
  int blocks = 1;
  int threads = block;
  static constexpr launch_field fields[] = {
      {"blocks", "blocks per batch (ema: enough for 8 blocks per SM over the 100 batches, none with nothing to draw)", 1, 65535},
      {"threads", "threads per block (fixed at 256: the kernel's launch bound and stride)", block, block}};
  std::array<int*, 2> members() { return {&blocks, &threads}; }
};
constexpr unsigned counters = 7;  // recurrent, on_vertical, on_diagonal, vstarts, vlength, dstarts, dlength
constexpr std::size_t overflow_capacity = 1 << 16;

struct dlines {
  unsigned long long* hist;  ///< [0, cap]
  std::size_t cap;
  unsigned long long* overflow;  ///< [0]: how many; then the lengths
};

__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void __launch_bounds__(block) motifs(plot p, std::uint64_t seed, std::uint64_t first, std::uint64_t per, std::uint64_t vmin,
                                                std::uint64_t lmin, unsigned long long* counts, dlines dl) {
  const std::uint64_t batch = first + blockIdx.y;
  unsigned long long c[counters] = {};
  for (std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * block + threadIdx.x; k < per; k += static_cast<std::uint64_t>(gridDim.x) * block) {
    const motif_sample s = draw_motif(p, seed, batch, k, vmin, lmin);
    c[0] += s.recurrent;
    c[1] += s.on_vertical;
    c[2] += s.on_diagonal;
    if (s.vline) ++c[3], c[4] += s.vline;
    if (s.dline) {
      ++c[5];
      c[6] += s.dline;
      if (s.dline <= dl.cap) {
        atomicAdd(dl.hist + s.dline, 1ull);
      } else {
        const unsigned long long at = atomicAdd(dl.overflow, 1ull);
        if (at < overflow_capacity) dl.overflow[1 + at] = s.dline;
      }
    }
  }
  unsigned long long* mine = counts + static_cast<std::size_t>(blockIdx.y) * counters;
  for (unsigned q = 0; q < counters; ++q) {
    const unsigned long long v = warp_sum(c[q]);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(mine + q, v);
  }
}

output motif_cuda(const input& in, run_context& ctx) {
  cuda::session gpu(ctx);
  const device_series dev(gpu, in);
  const plot& p = dev.p;
  const std::uint64_t per = in.s.cells / motif_batches;
  // Lines longer than 4096 are rare (one start each): the histogram stays small to copy back.
  const std::size_t cap = std::min<std::size_t>(p.N, std::size_t{1} << 12);
  auto* counts = gpu.alloc<unsigned long long>(motif_batches * counters);
  auto* hist = gpu.alloc<unsigned long long>(cap + 1);
  auto* overflow = gpu.alloc<unsigned long long>(1 + overflow_capacity);
  int sms = 0;
  EMA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu.device()));
  // Enough blocks for 8 per SM over the 100 batches, none with nothing to draw.
  const auto launch =
      ctx.launch(motif_launch{static_cast<int>(std::clamp<std::uint64_t>(ceil_div(8ull * sms, motif_batches), 1, grid_for(per, block)))});
  const auto wide = static_cast<unsigned>(launch.blocks);
  dev.upload(gpu, in);
  {
    auto kernel = gpu.phase("kernel");
    gpu.fill_bytes(hist, 0, cap + 1);
    gpu.fill_bytes(overflow, 0, 1);
  }
  const bool drawable = p.N > 0 && p.N > p.w;
  std::vector<unsigned long long> back(motif_batches * counters);
  auto m = run_motif(in, [&](std::uint64_t first, std::vector<motif_counts>& batches) {
    {
      auto kernel = gpu.phase("kernel");
      gpu.fill_bytes(counts, 0, motif_batches * counters);
      if (drawable && per) {
        motifs<<<dim3(wide, static_cast<unsigned>(motif_batches)), block, 0, gpu.stream()>>>(p, in.seed, first, per, in.s.vmin, in.s.lmin, counts,
                                                                                             {hist, cap, overflow});
        EMA_CUDA_CHECK_LAUNCH();
      }
    }
    {
      auto d2h = gpu.phase("d2h");
      gpu.download(back.data(), counts, back.size());
    }
    gpu.wait();
    for (std::size_t b = 0; b < batches.size(); ++b) {
      const unsigned long long* c = back.data() + b * counters;
      batches[b] = {c[0], c[1], c[2], c[3], c[4], c[5], c[6], {}};
    }
  });
  // The diagonal lengths drawn, pooled (only their sum over the batches is used: ENTR).
  std::vector<std::uint64_t> dhist(cap + 1);
  unsigned long long spilled = 0;
  {
    auto d2h = gpu.phase("d2h");
    gpu.download(reinterpret_cast<unsigned long long*>(dhist.data()), hist, cap + 1);
    gpu.download(&spilled, overflow, 1);
  }
  gpu.publish();
  if (spilled > overflow_capacity)
    throw std::runtime_error("motif-cuda: " + std::to_string(spilled) + " diagonal lines longer than " + std::to_string(cap) +
                             " were drawn; the list holds " + std::to_string(overflow_capacity));
  std::vector<unsigned long long> longer(spilled);
  if (spilled) {
    gpu.download(longer.data(), overflow + 1, spilled);
    gpu.wait();
  }
  gpu.finish();
  for (auto l : longer) {
    if (dhist.size() <= l) dhist.resize(l + 1, 0);
    ++dhist[l];
  }
  // ENTR from the histogram pooled on the device (motif_from_batches pools the batches' the same way).
  m.entr = plugin_entropy(dhist);
  return m;
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_motif_cuda, ema::rqa::kit::variant<&ema::rqa::motif_cuda>({
                                .name = "motif-cuda",
                                .algorithm = "motif",
                                .backend = ema::backend::cuda,
                                .role = ema::variant_role::ours,
                                .description = "LAM and DET from random cells on the GPU (the same cells as motif-seq), TT, L, ENTR from line starts",
                                .provenance = "ours",
                                .launch = ema::rqa::motif_launch::fields,
                            }));
