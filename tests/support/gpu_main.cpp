// main() of a GPU test binary: without a usable CUDA device it says why and exits 77, which CTest
// (SKIP_RETURN_CODE 77) reports as not run.
#include <cstdio>
#include <gtest/gtest.h>

#include "measure/gpu.hpp"

int main(int argc, char** argv) {
  if (ema::gpu::device_count() == 0) {
    std::printf("skipped: %s\n", ema::gpu::query().unavailable.c_str());
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
