#include "core/metrics.hpp"

namespace ema {
namespace {

constexpr metric_info catalog[] = {
    {"total", metric_kind::time, "s", "wall time of the whole operation as a user sees it: allocation, copies, kernels, synchronisation"},
    {"kernel", metric_kind::time, "s", "device time of the computation alone (CUDA events)"},
    {"h2d", metric_kind::time, "s", "host-to-device copies (CUDA events)"},
    {"d2h", metric_kind::time, "s", "device-to-host copies (CUDA events)"},
    {"stage1", metric_kind::time, "s", "first stage of a two-stage method, e.g. gauss's elimination (CUDA events on the GPU)"},
    {"stage2", metric_kind::time, "s", "second stage of a two-stage method, e.g. gauss's back substitution"},
    {"alloc", metric_kind::time, "s", "device allocation (host clock)"},
    {"free", metric_kind::time, "s", "device deallocation (host clock)"},
    {"host_peak_rss", metric_kind::bytes, "B", "peak resident host memory of the point's process"},
    {"device_peak", metric_kind::bytes, "B", "peak device memory the variant allocated"},
    {"energy_gpu", metric_kind::energy, "J", "GPU board energy per operation (NVML)"},
    {"energy_gpu_above_idle", metric_kind::energy, "J", "GPU board energy per operation above idle power"},
    {"energy_cpu", metric_kind::energy, "J", "CPU package energy per operation (RAPL)"},
    {"energy_cpu_above_idle", metric_kind::energy, "J", "CPU package energy per operation above idle power"},
    {"energy_dram", metric_kind::energy, "J", "DRAM energy per operation (RAPL)"},
    {"energy_dram_above_idle", metric_kind::energy, "J", "DRAM energy per operation above idle power"},
};

}  // namespace

std::span<const metric_info> metric_catalog() { return catalog; }

metric_info find_metric(std::string_view name) {
  for (const auto& m : catalog)
    if (name == m.name) return m;
  return {"", metric_kind::time, "s", "a phase reported by the variant"};
}

}  // namespace ema
