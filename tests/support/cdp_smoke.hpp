// A kernel that launches kernels (cdp_smoke.cu), for the GPU test of the RDC build kind.
#pragma once

namespace ema::test {

struct cdp_result {
  unsigned device_launches = 0;  ///< child grids that ran (each counts itself once)
  int wrong_in_tail = -1;        ///< elements the tail launch found unwritten: 0 when it ran last
};

/// Fills n ints from `parts` child grids launched by one parent thread, then checks them from a
/// tail launch. Throws std::runtime_error on a CUDA error.
cdp_result run_cdp_smoke(int n, int parts);

}  // namespace ema::test
