// A graph problem's graph on the GPU (bfs, sssp; problems/graph/graph_problem.hpp), through the GPU
// session every CUDA variant measures with (measure/cuda/session.cuh): the CSR copied in its own
// `h2d` phase (the issue's "the CSR's copy to the device is its own phase"), and per-root event
// timing for the note `root_ms` (laps on the session's timeline), as the CPU variants record it (graph_problem::each_root): the
// roots' loop, its phases and the download in one place, each_root_on_device.
#pragma once

#include <cuda_runtime.h>
#include <cstdio>
#include <string>
#include <vector>

#include "core/run_context.hpp"
#include "inputs/graph.hpp"
#include "measure/cuda/check.cuh"
#include "measure/cuda/session.cuh"

namespace ema {

struct device_graph {
  std::uint64_t n = 0, m = 0;  ///< vertices and CSR entries
  std::uint64_t* offsets = nullptr;
  std::uint32_t* neighbours = nullptr;
  std::uint32_t* weights = nullptr;  ///< nullptr for an unweighted graph
  std::uint32_t* origin = nullptr;   ///< each entry's row (the edge list of the source's SSSP), when asked
};

/// Allocates the graph on the device and copies it in (the `h2d` phase); `origin` the host's
/// edge-list origins, or nullptr.
inline device_graph upload_graph(cuda::session& gpu, const csr_graph& g, const std::vector<std::uint32_t>* origin = nullptr) {
  device_graph d;
  d.n = g.n;
  d.m = g.neighbours.size();
  d.offsets = gpu.alloc<std::uint64_t>(g.offsets.size());
  d.neighbours = gpu.alloc<std::uint32_t>(d.m);
  if (!g.weights.empty()) d.weights = gpu.alloc<std::uint32_t>(d.m);
  if (origin) d.origin = gpu.alloc<std::uint32_t>(d.m);
  auto h2d = gpu.phase("h2d");
  gpu.upload(d.offsets, g.offsets.data(), g.offsets.size());
  gpu.upload(d.neighbours, g.neighbours.data(), d.m);
  if (d.weights) gpu.upload(d.weights, g.weights.data(), d.m);
  if (origin) gpu.upload(d.origin, origin->data(), d.m);
  return d;
}

/// The note `root_ms`: each root's time in milliseconds, comma-separated, as the CPU variants
/// record it.
inline void note_root_ms(run_context& ctx, const std::vector<double>& seconds) {
  std::string times;
  for (double t : seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%s%.4g", times.empty() ? "" : ",", t * 1e3);
    times += text;
  }
  ctx.note("root_ms", times);
}

/// The shape every GPU variant of a graph problem shares: `search(r)` for each of `roots` roots in
/// the `kernel` phase, each between events that time it for the note `root_ms` (as the CPU
/// variants' graph_problem::each_root), then `download()` in the `d2h` phase and the session
/// finished. The variant's own notes follow.
template <class Search, class Download>
void each_root_on_device(cuda::session& gpu, run_context& ctx, std::uint64_t roots, Search&& search, Download&& download) {
  {
    auto kernel = gpu.phase("kernel");
    for (std::uint64_t r = 0; r < roots; ++r) {
      auto lap = gpu.lap("root");
      search(r);
    }
  }
  {
    auto d2h = gpu.phase("d2h");
    download();
  }
  gpu.finish();
  note_root_ms(ctx, gpu.lap_times("root"));
}

}  // namespace ema
