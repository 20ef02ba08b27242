// Host floating-point throughput: the compute roof of a CPU variant's roofline (report/roofline.hpp).
// Independent chains of fused multiply-adds in the widest vectors the CPU runs (AVX-512, AVX2 with
// FMA, else SSE2's multiply and add), one thread or all of them; the best instruction set wins and
// is named, so the roof is what this CPU can do, not what the build's flags target.
#pragma once

#include <string>

namespace ema {

struct host_flops {
  double flops = 0;  ///< floating-point operations per second (an FMA counts two)
  std::string how;   ///< the instruction set and threads that achieved it
};

/// The median of several timed runs of the best kernel this CPU supports, in single (`f64` false)
/// or double precision, on `threads` threads.
host_flops host_fma_throughput(bool f64, int threads);

}  // namespace ema
