#include "core/metrics.hpp"

namespace ema {
namespace {

using enum metric_kind;
using enum metric_source;

constexpr metric_info catalog[] = {
    {"total", "Total time", time, run, "s", "wall time of the whole operation as a user sees it: allocation, copies, kernels, synchronisation"},
    {"user", "User CPU time", time, run, "s", "CPU time of a user's program in user mode (ema exec)"},
    {"sys", "System CPU time", time, run, "s", "CPU time of a user's program in the kernel (ema exec)"},
    {"kernel", "Kernel time", time, phase, "s", "device time of the computation alone (CUDA events)"},
    {"h2d", "Copies to the device", time, phase, "s", "host-to-device copies (CUDA events)"},
    {"d2h", "Copies back to the host", time, phase, "s", "device-to-host copies (CUDA events)"},
    {"stage1", "First stage's time", time, phase, "s", "first stage of a two-stage method, e.g. gauss's elimination (CUDA events on the GPU)"},
    {"stage2", "Second stage's time", time, phase, "s", "second stage of a two-stage method, e.g. gauss's back substitution"},
    {"alloc", "Device allocation time", time, phase, "s", "device allocation (host clock)"},
    {"free", "Device deallocation time", time, phase, "s", "device deallocation (host clock)"},
    {"host_peak_rss", "Peak host memory", bytes, run, "B", "peak resident host memory of the point's process"},
    {"device_peak", "Peak device memory", bytes, run, "B", "peak device memory the variant allocated"},
    {"energy_gpu", "GPU energy per operation", energy, meter, "J", "GPU board energy per operation (NVML)"},
    {"energy_gpu_above_idle", "GPU energy per operation above idle", energy, meter, "J", "GPU board energy per operation above idle power", false},
    {"energy_cpu", "CPU energy per operation", energy, meter, "J", "CPU package energy per operation (RAPL)"},
    {"energy_cpu_above_idle", "CPU energy per operation above idle", energy, meter, "J", "CPU package energy per operation above idle power", false},
    {"energy_dram", "DRAM energy per operation", energy, meter, "J", "DRAM energy per operation (RAPL)"},
    {"energy_dram_above_idle", "DRAM energy per operation above idle", energy, meter, "J", "DRAM energy per operation above idle power", false},
    {"point_wall", "Whole process's wall time", time, run, "s",
     "wall time of the point's whole process: start, input, every run (what a calibrated sweep's budget spends)", false},
};

}  // namespace

std::span<const metric_info> metric_catalog() { return catalog; }

metric_info find_metric(std::string_view name) {
  for (const auto& m : catalog)
    if (name == m.name) return m;
  return {"", "", metric_kind::time, metric_source::phase, "s", "a phase reported by the variant"};
}

std::string run_metric_names() {
  std::string out, last;
  for (const auto& m : catalog) {
    if (m.source != metric_source::run) continue;
    if (!last.empty()) out += (out.empty() ? "" : ", ") + last;
    last = m.name;
  }
  return out.empty() ? last : out + " or " + last;
}

}  // namespace ema
