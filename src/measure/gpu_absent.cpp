// measure/gpu.hpp for a build without CUDA: there is no device, and the reason says so.
#include <stdexcept>

#include "measure/gpu.hpp"

namespace ema::gpu {

const runtime_info& query() {
  static const runtime_info info = [] {
    runtime_info r;
    r.unavailable = "ema was built without CUDA";
    return r;
  }();
  return info;
}

void* allocate_pinned(std::size_t) { throw std::runtime_error("pinned memory needs a CUDA build"); }
void free_pinned(void*) noexcept {}
void initialise(int) { throw std::runtime_error("ema was built without CUDA"); }
device_ceilings probe_device(int, bool) { throw std::runtime_error("ema was built without CUDA"); }
double probe_partition_read(int, int) { throw std::runtime_error("ema was built without CUDA"); }
sm_partitioning sm_partitions(int) { return {.unavailable = "ema was built without CUDA"}; }
int restrict_sms(int, int) { throw std::runtime_error("ema was built without CUDA"); }

}  // namespace ema::gpu
