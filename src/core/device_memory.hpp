// Accounting of device memory: every device allocation a variant makes goes through a
// device_memory_tracker, so the peak device memory of a point is known exactly (CUB's two-phase
// temporary-storage queries and Thrust's allocator hook make library calls accountable too).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace ema {

class device_memory_tracker {
 public:
  void allocated(std::uint64_t bytes) {
    auto now = current_.fetch_add(bytes) + bytes;
    auto peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
  }
  void released(std::uint64_t bytes) { current_.fetch_sub(bytes); }
  std::uint64_t current() const { return current_.load(); }
  std::uint64_t peak() const { return peak_.load(); }

 private:
  std::atomic<std::uint64_t> current_{0};
  std::atomic<std::uint64_t> peak_{0};
};

}  // namespace ema
