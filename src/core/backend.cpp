#include "core/backend.hpp"

#include "core/status.hpp"

namespace ema {

std::optional<backend> backend_from_string(std::string_view s) {
  for (auto b : {backend::seq, backend::omp, backend::cuda, backend::multi_gpu})
    if (to_string(b) == s) return b;
  return std::nullopt;
}

std::optional<point_status> status_from_string(std::string_view s) {
  for (auto st : {point_status::ok, point_status::failed, point_status::crashed, point_status::timeout, point_status::oom, point_status::unverified,
                  point_status::skipped})
    if (to_string(st) == s) return st;
  return std::nullopt;
}

}  // namespace ema
