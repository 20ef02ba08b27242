// Process-lifetime CUDA resources a variant reuses across repetitions, like the context itself:
// one non-blocking stream per device and a small pinned buffer per device for results that come
// back asynchronously. They are created by the warm-up run, so no timed run pays for them.
#pragma once

#include <cuda_runtime.h>

namespace ema::cuda {

/// Makes `device` current on the calling thread: the green context gpu::restrict_sms made for it,
/// else its primary context (cudaSetDevice, which would leave the green context).
void make_current(int device);

/// The stream for work on `device` (created on first use, with that device current).
cudaStream_t stream(int device);

/// Leaves `device`'s stream behind (not destroyed: it belongs to the context it was made in), so the
/// next stream(device) is made in the context now current (a green context, gpu::restrict_sms).
void forget_stream(int device);

/// A pinned host buffer of at least `bytes` dedicated to `device`'s results.
void* pinned_scratch(int device, std::size_t bytes);

}  // namespace ema::cuda
