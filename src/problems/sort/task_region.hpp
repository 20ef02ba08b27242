// sort on the CPU: how the source's OpenMP recursions start (Algorithms 4 and 6 of
// Nogueira, 004_96c7929830a11cf7.txt): the root call on one thread of a parallel region, its `omp task`s
// spread over the team, the region's end waiting for them all. Timed as the kernel; the team's size
// recorded as the note `threads` and as the processor count of efficiency and cost.
#pragma once

#include <omp.h>

#include "core/run_context.hpp"

namespace ema::sort {

/// Runs `root()` as above; with `work` false (nothing to sort) no region is opened and one thread
/// is recorded.
template <class Root>
void in_task_region(run_context& ctx, bool work, Root&& root) {
  int threads = 1;
  {
    host_phase kernel(ctx, "kernel");
    if (work) {
#pragma omp parallel
#pragma omp single
      {
        threads = omp_get_num_threads();
        root();
      }
    }
  }
  ctx.note("threads", threads);
  ctx.processors(threads);
}

}  // namespace ema::sort
