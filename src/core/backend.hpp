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
    case backend::seq:
      return "seq";
    case backend::omp:
      return "omp";
    case backend::cuda:
      return "cuda";
    case backend::multi_gpu:
      return "multi-gpu";
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

/// How many of the machine's `present` GPUs a variant on back end `b` uses: none on the host, the
/// first for `cuda`, every one for `multi-gpu`. The one place this is decided.
constexpr int devices_used(backend b, int present) {
  if (b == backend::cuda) return present > 0 ? 1 : 0;
  if (b == backend::multi_gpu) return present;
  return 0;
}
/// The same for a back end stored by name; a user's program (not one of ours) uses none.
inline int devices_used(std::string_view b, int present) {
  auto k = backend_from_string(b);
  return k ? devices_used(*k, present) : 0;
}

}  // namespace ema
