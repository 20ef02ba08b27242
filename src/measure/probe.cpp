#include "measure/probe.hpp"

#include <fmt/format.h>
#include <string_view>

#include "core/backend.hpp"
#include "measure/gpu.hpp"
#include "measure/host_compute.hpp"
#include "measure/host_probe.hpp"
#include "measure/machine.hpp"

namespace ema {
namespace {

// Every ceiling measure_ceilings writes, a value or the reason it is unavailable.
constexpr const char* ceiling_names[] = {
    "host_read_bw_all", "host_read_bw_one",   "host_fma_f32_one", "host_fma_f32_all",   "host_fma_f64_one",   "host_fma_f64_all",
    "device_read_bw",   "device_read_bw_all", "device_copy_bw",   "launch_overhead",    "launch_latency",     "h2d_pinned_bw",
    "d2h_pinned_bw",    "device_fma_f32",     "device_fma_f64",   "device_fma_f32_all", "device_fma_f64_all", "device_read_bw_partition"};

nlohmann::json value(double v, const char* unit, const std::string& detail = {}) {
  nlohmann::json j = {{"value", v}, {"unit", unit}};
  if (!detail.empty()) j["detail"] = detail;
  return j;
}

}  // namespace

const char* ceiling_for_backend(const std::string& backend) {
  const auto b = backend_from_string(backend);
  if (!b) return "";  // a user's program
  switch (*b) {
    case backend::seq:
      return "host_read_bw_one";
    case backend::omp:
      return "host_read_bw_all";
    case backend::cuda:
      return "device_read_bw";
    case backend::multi_gpu:
      return "device_read_bw_all";
  }
  return "";
}

const char* compute_ceiling_for_backend(const std::string& backend, bool f64) {
  const auto b = backend_from_string(backend);
  if (!b) return "";
  switch (*b) {
    case backend::seq:
      return f64 ? "host_fma_f64_one" : "host_fma_f32_one";
    case backend::omp:
      return f64 ? "host_fma_f64_all" : "host_fma_f32_all";
    case backend::cuda:
      return f64 ? "device_fma_f64" : "device_fma_f32";
    case backend::multi_gpu:
      return f64 ? "device_fma_f64_all" : "device_fma_f32_all";
  }
  return "";
}

bool ceilings_complete(const nlohmann::json& ceilings) {
  if (!ceilings.is_object()) return false;
  for (const char* name : ceiling_names)
    if (!ceilings.contains(name)) return false;
  return true;
}

nlohmann::json measure_ceilings(const std::function<void(const std::string&)>& progress) {
  nlohmann::json c;
  const auto bytes = host_probe_bytes();
  const int threads = openmp_threads();
  progress(fmt::format("host read bandwidth, {} threads, {} MiB", threads, bytes >> 20));
  c["host_read_bw_all"] = value(host_read_bandwidth(bytes, threads), "B/s", fmt::format("{} threads, {} MiB", threads, bytes >> 20));
  progress("host read bandwidth, 1 thread");
  c["host_read_bw_one"] = value(host_read_bandwidth(bytes, 1), "B/s", fmt::format("1 thread, {} MiB", bytes >> 20));
  for (const bool f64 : {false, true})
    for (const int t : {1, threads}) {
      progress(fmt::format("host {} FMA throughput, {} thread{}", f64 ? "double" : "single", t, t == 1 ? "" : "s"));
      const auto f = host_fma_throughput(f64, t);
      c[fmt::format("host_fma_{}_{}", f64 ? "f64" : "f32", t == 1 ? "one" : "all")] = value(f.flops, "FLOP/s", f.how);
    }

  const auto& g = gpu::query();
  if (g.devices.empty()) {
    for (auto* name : ceiling_names)
      if (!std::string_view(name).starts_with("host_")) c[name] = {{"unavailable", g.unavailable}};
    return c;
  }
  double read_all = 0, f32_all = 0, f64_all = 0;
  for (const auto& d : g.devices) {
    progress(fmt::format("device {} ({})", d.index, d.name));
    auto r = gpu::probe_device(d.index, d.index != 0);
    read_all += r.read_bw;
    f32_all += r.fma_f32;
    f64_all += r.fma_f64;
    if (d.index == 0) {
      c["device_fma_f32"] = value(r.fma_f32, "FLOP/s", fmt::format("{}: FMA pipes, single precision", d.name));
      c["device_fma_f64"] = value(r.fma_f64, "FLOP/s", fmt::format("{}: FMA pipes, double precision; {}", d.name, r.fma_config));
      c["device_read_bw"] = value(r.read_bw, "B/s", fmt::format("{}: {}", d.name, r.read_config));
      c["device_copy_bw"] = value(r.copy_bw, "B/s", "device to device, bytes read + written");
      c["launch_overhead"] = value(r.launch_overhead, "s", "per empty kernel, back to back");
      c["launch_latency"] = value(r.launch_latency, "s", "empty kernel launch + synchronise");
      c["h2d_pinned_bw"] = value(r.h2d_bw, "B/s", "pinned host to device");
      c["d2h_pinned_bw"] = value(r.d2h_bw, "B/s", "device to pinned host");
    }
  }
  // The read bandwidth of device 0's smallest SM partition, for `% ceil` at k SMs (`ema run --sms`):
  // last, as its green context stays current in this process.
  const auto part = gpu::sm_partitions(0);
  if (!part.unavailable.empty()) {
    c["device_read_bw_partition"] = {{"unavailable", part.unavailable}};
  } else {
    progress(fmt::format("device 0, a green context of {} SMs", part.min_partition));
    try {
      auto v = value(gpu::probe_partition_read(0, part.min_partition), "B/s",
                     fmt::format("device 0 restricted to {} of its {} SMs (a CUDA green context)", part.min_partition, part.sm_count));
      v["sms"] = part.min_partition;
      c["device_read_bw_partition"] = v;
    } catch (const std::runtime_error& e) {
      c["device_read_bw_partition"] = {{"unavailable", e.what()}};
    }
  }
  c["device_read_bw_all"] = value(read_all, "B/s", fmt::format("sum over {} device(s)", g.devices.size()));
  c["device_fma_f32_all"] = value(f32_all, "FLOP/s", fmt::format("sum over {} device(s)", g.devices.size()));
  c["device_fma_f64_all"] = value(f64_all, "FLOP/s", fmt::format("sum over {} device(s)", g.devices.size()));
  return c;
}

}  // namespace ema
