// rqa / microstates-cuda — the source's CUDA kernel (Froguel, 000_d2722dce0c10bad2.txt, section 1, steps 1-5): one
// block per microstate, the microstate's two stretches of the series and the Q x Q microstate in
// shared memory, a thread per microstate column scanning it for vertical runs into a shared
// histogram (atomicAdd), thread 0 forming the microstate's LAM (equation 1); the host draws the
// corners (xrand, yrand) and averages. Adapted, as the issue asks, to our settings: double values
// (the source: float), vectors of m components (the stretches hold Q + (m - 1) tau values), any
// norm, the Theiler window, vmin (the source tests k + 1 >= lmin), and the cell arithmetic of
// rqa.hpp, so the answer equals microstates-seq's. The listing's unbalanced braces in step 4 are read as in
// microstates.hpp.
#include <algorithm>

#include "core/registry.hpp"
#include "problems/rqa/device.cuh"
#include "problems/rqa/microstates.hpp"

namespace ema::rqa {
namespace {

template <norm_kind K>
__global__ void microstates(plot p, std::size_t Q, std::size_t span, std::size_t vmin, const std::size_t* xrand, const std::size_t* yrand,
                            double* lam_out) {
  extern __shared__ unsigned char shared[];
  // 1. Space: mapx, mapy (the two stretches), the histogram, the microstate.
  double* mapx = reinterpret_cast<double*>(shared);
  double* mapy = mapx + span;
  int* histogram = reinterpret_cast<int*>(mapy + span);
  bool* microstate = reinterpret_cast<bool*>(histogram + Q);
  const unsigned tid = threadIdx.x;
  const std::size_t i = xrand[blockIdx.x], j = yrand[blockIdx.x];
  // 2. The stretches [i, i + span) and [j, j + span) to shared memory; the histogram cleared.
  for (std::size_t k = tid; k < span; k += blockDim.x) {
    mapx[k] = p.x[i + k];
    mapy[k] = p.x[j + k];
  }
  for (std::size_t k = tid; k < Q; k += blockDim.x) histogram[k] = 0;
  __syncthreads();
  // 3. The microstate: cell k is row iq = k % Q, column jq = k / Q.
  for (std::size_t k = tid; k < Q * Q; k += blockDim.x) {
    const std::size_t iq = k % Q, jq = k / Q;
    const std::size_t a = i + iq, b = j + jq, gap = a > b ? a - b : b - a;
    microstate[k] = gap >= p.w && distance<K>(mapx + iq, mapy + jq, p.m, p.tau) < p.limit;
  }
  __syncthreads();
  // 4. Thread tid scans column tid (microstate[k + tid * Q] over k), a run closed by a 0 or the edge.
  if (tid < Q) {
    int line_length = 0;
    for (std::size_t k = 0; k < Q; ++k) {
      if (microstate[k + tid * Q]) {
        ++line_length;
        if (k == Q - 1) {
          atomicAdd(&histogram[line_length - 1], 1);
          line_length = 0;
        }
      } else if (line_length > 0) {
        atomicAdd(&histogram[line_length - 1], 1);
        line_length = 0;
      }
    }
  }
  __syncthreads();
  // 5. Equation 1 on thread 0; a microstate without a recurrent cell has no LAM (-1).
  if (tid == 0) {
    double lam = 0, total = 0;
    for (std::size_t k = 0; k < Q; ++k) {
      if (k + 1 >= vmin) lam += static_cast<double>(histogram[k]) * static_cast<double>(k + 1);
      total += static_cast<double>(histogram[k]) * static_cast<double>(k + 1);
    }
    lam_out[blockIdx.x] = total != 0 ? lam / total : -1.0;
  }
}

/// Besides microstates_fit: a thread per column of a microstate, so Q <= 1024 (a block's threads).
const char* microstates_fit_a_block(const param_set& p, std::uint64_t n) {
  if (p.integer("Q") > 1024) return "microstates-cuda takes Q <= 1024 (a thread per column of a microstate, in one block)";
  return microstates_fit(p, n);
}

output microstates_cuda(const input& in, run_context& ctx) {
  require_microstates(in);
  const std::size_t Q = in.s.q, S = in.s.samples, span = Q + (in.s.m - 1) * in.s.tau;
  const std::size_t shared = 2 * span * sizeof(double) + Q * sizeof(int) + Q * Q;
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(1024, (std::max<std::size_t>(Q, 32) + 31) / 32 * 32));
  if (Q > 1024)
    throw std::runtime_error("microstates-cuda: Q = " + std::to_string(Q) + " needs more than 1024 threads per block (a thread per column)");
  int device_limit = 0;
  EMA_CUDA_CHECK(cudaDeviceGetAttribute(&device_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  if (shared > static_cast<std::size_t>(device_limit))
    throw std::runtime_error("microstates-cuda: a " + std::to_string(Q) + " x " + std::to_string(Q) + " microstate needs " + std::to_string(shared) +
                             " bytes of shared memory; this GPU gives a block " + std::to_string(device_limit));
  // The host draws the corners, as the source's xrand and yrand.
  std::vector<std::size_t> xs(S), ys(S);
  for (std::size_t s = 0; s < S; ++s) std::tie(xs[s], ys[s]) = microstate_at(in, s);
  cuda::session gpu(ctx);
  const device_series dev(gpu, in);
  auto* corners = gpu.alloc<std::size_t>(2 * S);
  auto* lam = gpu.alloc<double>(S);
  // Dictated by the source's kernel (a block per microstate, a thread per column), so not settings.
  ctx.note("blocks", static_cast<std::int64_t>(S));
  ctx.note("threads", static_cast<std::int64_t>(threads));
  ctx.note("shared_bytes", static_cast<std::int64_t>(shared));
  dev.upload(gpu, in);
  {
    auto h2d = gpu.phase("h2d");
    gpu.upload(corners, xs.data(), S);
    gpu.upload(corners + S, ys.data(), S);
  }
  {
    auto kernel = gpu.phase("kernel");
    with_norm(dev.p.norm, [&](auto k) {
      auto kernel_fn = microstates<decltype(k)::value>;
      EMA_CUDA_CHECK(cudaFuncSetAttribute(kernel_fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
      if (S) {
        kernel_fn<<<static_cast<unsigned>(S), threads, shared, gpu.stream()>>>(dev.p, Q, span, in.s.vmin, corners, corners + S, lam);
        EMA_CUDA_CHECK_LAUNCH();
      }
    });
  }
  std::vector<double> back(S);
  {
    auto d2h = gpu.phase("d2h");
    gpu.download(back.data(), lam, S);
  }
  gpu.finish();
  double sum = 0, sum2 = 0;
  std::uint64_t used = 0;
  for (double v : back)
    if (v >= 0) ++used, sum += v, sum2 += v * v;
  return microstates_estimate(S, used, sum, sum2);
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_microstates_cuda,
            ema::rqa::kit::variant<&ema::rqa::microstates_cuda>({
                .name = "microstates-cuda",
                .algorithm = "microstates",
                .backend = ema::backend::cuda,
                .role = ema::variant_role::source,
                .description = "the source's kernel: a block per Q x Q microstate in shared memory, LAM averaged",
                .provenance = "section 1 (steps 1-5) and equation 1 of 000_d2722dce0c10bad2.txt",
                .launch_fixed = "the source's kernel: a block per microstate, a thread per column of it (Q threads, a multiple of 32)",
                .not_applicable = &ema::rqa::microstates_fit_a_block,
            }));
