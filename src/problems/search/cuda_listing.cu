// search / cuda-listing — Algorithm 2 of Nobre et al., 001_9fea77a744af8951.txt ("Pesquisa_Paralelo") as written,
// so that the source's complexity claim (ceil(log n) parallel steps) can be checked:
//   p = ceil(n / log2 n) threads for n > 1, else 1                            (equation 1)
//   block size b = p; steps d = 0 .. ceil(log2 n), thread t checks L[b*d + t]  (lines 2-3)
//   the shared k is read before every comparison and ends the search         (lines 4-5, 7-8)
//   launch <<<bthreads, maxthreads>>> with bthreads = (p + maxthreads + 1) / maxthreads  (equation 2)
// Equation 2 overshoots: it launches one block more than ceil(p / maxthreads) whenever
// p mod maxthreads is 0 or maxthreads - 1; those threads have t >= p and leave at once.
// One interpretation: "k := j" by every finder races when the key occurs several times, and
// "k != -1 => break" would then stop a thread that could still find a lower index. Here k starts at
// "none" (all ones), finders write it with atomicMin, and a thread stops once k is below its next
// position — the same early exit, with the lowest index guaranteed.
#include <array>
#include <cmath>
#include <string>

#include "core/registry.hpp"
#include "problems/search/device_scan.cuh"

namespace ema::search {
namespace {

/// Equation 2's maxthreads, the one free choice of the listing (the blocks follow from it).
struct listing_launch {
  int threads = 1024;
  static constexpr launch_field fields[] = {
      {"threads", "maxthreads of equation 2, threads per block (ema: the device's limit, as the source)", 1, 1024}};
  std::array<int*, 1> members() { return {&threads}; }
};

__global__ void pesquisa_paralelo(const std::uint32_t* L, std::uint32_t x, unsigned long long n, unsigned long long b, unsigned steps,
                                  unsigned long long* k) {
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (t >= b) return;
  for (unsigned d = 0; d <= steps; ++d) {
    const unsigned long long j = b * d + t;
    if (j >= n) break;
    if (*reinterpret_cast<volatile unsigned long long*>(k) < j) break;  // x already found before j
    if (L[j] == x) {
      atomicMin(k, j);
      break;
    }
  }
}

output pesquisa(const input& in, run_context& ctx) {
  const unsigned long long n = in.data.size();
  const double lg = n > 1 ? std::log2(static_cast<double>(n)) : 1.0;
  const unsigned long long p = n > 1 ? static_cast<unsigned long long>(std::ceil(static_cast<double>(n) / lg)) : 1;
  const unsigned steps = n > 1 ? static_cast<unsigned>(std::ceil(lg)) : 0;
  const auto launch = ctx.launch(listing_launch{gpu::query().devices.at(0).max_threads_per_block});
  const unsigned long long maxthreads = static_cast<unsigned long long>(launch.threads);
  const unsigned long long bthreads = (p + maxthreads + 1) / maxthreads;
  ctx.note("blocks", static_cast<std::int64_t>(bthreads));  // equation 2
  ctx.note("steps", static_cast<std::int64_t>(steps + 1));
  ctx.processors(static_cast<std::int64_t>(p));
  return run_on_device(
      in, ctx,
      [&](cuda::session& gpu, const std::uint32_t* d, std::uint64_t size, std::uint32_t key, unsigned long long* k) -> std::optional<output> {
        pesquisa_paralelo<<<static_cast<unsigned>(bthreads), static_cast<unsigned>(maxthreads), 0, gpu.stream()>>>(d, key, size, p, steps, k);
        EMA_CUDA_CHECK_LAUNCH();
        return std::nullopt;
      });
}

}  // namespace
}  // namespace ema::search

EMA_VARIANT(search_cuda_listing, ema::search::kit::variant<&ema::search::pesquisa>({
                                     .name = "cuda-listing",
                                     .backend = ema::backend::cuda,
                                     .role = ema::variant_role::source,
                                     .description = "p = ceil(n/log n) threads, ceil(log n) steps of p elements, shared early-exit flag",
                                     .provenance = "Algorithm 2 and equations 1-2 of 001_9fea77a744af8951.txt",
                                     .launch = ema::search::listing_launch::fields,
                                 }));
