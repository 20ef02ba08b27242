// The execution back ends a variant can use. The back end decides where a variant can run
// (a CUDA variant needs a device) and which machine ceiling its bandwidth is compared with.
#pragma once

#include <optional>
#include <string_view>

namespace ema {

enum class backend { seq, omp, cuda, multi_gpu };

/// The name used on the command line, in the database and in reports.
constexpr std::string_view to_string(backend b) {
  switch (b) {
    case backend::seq: return "seq";
    case backend::omp: return "omp";
    case backend::cuda: return "cuda";
    case backend::multi_gpu: return "multi-gpu";
  }
  return "?";
}

std::optional<backend> backend_from_string(std::string_view s);

/// The order back ends appear in tables: seq, omp, cuda, multi-gpu, then anything else (a user's
/// program).
inline int backend_order(std::string_view name) {
  auto b = backend_from_string(name);
  return b ? static_cast<int>(*b) : 99;
}

/// True for back ends that run on a GPU.
constexpr bool uses_gpu(backend b) { return b == backend::cuda || b == backend::multi_gpu; }

}  // namespace ema
