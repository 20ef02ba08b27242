// The GPU runtime as the CPU side of ema sees it: device discovery, pinned host memory and
// context start-up. No CUDA header reaches code that includes this, so the CPU-only build
// compiles it too; there the implementation (measure/gpu_absent.cpp) reports no devices and why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/backend.hpp"

namespace ema::gpu {

struct device_info {
  int index = 0;
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t shared_memory_per_sm_bytes = 0;
};

struct runtime_info {
  bool built_with_cuda = false;
  int runtime_version = 0;  ///< e.g. 13000 for CUDA 13.0; 0 when unknown
  int driver_version = 0;
  std::vector<device_info> devices;
  std::string unavailable;  ///< why no device can be used; empty when one can
};

/// Discovers the devices once per process (never throws).
const runtime_info& query();

/// Number of usable devices (0 when none, see query().unavailable).
inline int device_count() { return static_cast<int>(query().devices.size()); }

/// Pinned host memory; throws out_of_memory on failure, std::runtime_error without CUDA.
void* allocate_pinned(std::size_t bytes);
void free_pinned(void* p) noexcept;

/// Creates the primary context on devices [0, count) so that its cost stays out of timings.
void initialise(int count);

/// How a device's streaming multiprocessors can be partitioned by a CUDA green context (driver
/// 12.4+; not under MIG): its SM count, the smallest partition and the granularity above it, or
/// why it cannot.
struct sm_partitioning {
  int sm_count = 0, min_partition = 0, alignment = 0;
  std::string unavailable;  ///< empty when green contexts can be made
};
sm_partitioning sm_partitions(int device);

/// Makes a green context of `sms` of `device`'s SMs current to the calling thread, so the work that
/// follows on the device runs on those SMs alone (issue 32: the SMs as a processor axis); returns the
/// SMs it holds. Throws std::runtime_error naming why it cannot (no CUDA, an older driver, MIG, a
/// count the device cannot split off).
int restrict_sms(int device, int sms);

/// The ceilings `ema probe` measures on one device. Bandwidths in bytes per second (a copy counts
/// bytes read plus bytes written), latencies in seconds.
struct device_ceilings {
  double read_bw = 0;          ///< best streaming-read kernel over a buffer far larger than L2
  std::string read_config;     ///< the launch configuration that achieved it
  double copy_bw = 0;          ///< device-to-device cudaMemcpy
  double launch_overhead = 0;  ///< per empty kernel launched back to back
  double launch_latency = 0;   ///< launch of an empty kernel and synchronisation, round trip
  double h2d_bw = 0;           ///< pinned host to device
  double d2h_bw = 0;           ///< device to pinned host
  /// Floating-point operations per second of independent FMA chains on every SM (an FMA counts
  /// two; the FMA pipes, no tensor cores), single and double precision: the roofline's compute roof.
  double fma_f32 = 0, fma_f64 = 0;
  std::string fma_config;  ///< the launch configuration of the best double-precision run
};

/// Measures one device; `read_only` skips all but the read bandwidth and the FMA throughput (for the other devices of a
/// multi-GPU machine). Throws std::runtime_error without CUDA.
device_ceilings probe_device(int device, bool read_only);

/// The read bandwidth `sms` of `device`'s SMs can draw, measured in a green context of that many
/// (restrict_sms: it stays current, so this is the last thing a process measures on the device).
/// Throws std::runtime_error where green contexts cannot be made.
double probe_partition_read(int device, int sms);

}  // namespace ema::gpu

namespace ema {

/// Whether a variant on back end `b` can run on this machine, and why not.
struct availability {
  bool ok = true;
  std::string reason;
};
inline availability available(backend b) {
  if (uses_gpu(b) && gpu::device_count() == 0) return {false, gpu::query().unavailable};
  return {};
}

}  // namespace ema
