#include "inputs/host_array.hpp"

#include <cstdlib>
#include <fmt/format.h>

#include "core/errors.hpp"
#include "measure/gpu.hpp"

namespace ema {

void* host_allocate(std::size_t bytes, host_memory_kind kind) {
  if (kind == host_memory_kind::pinned) return gpu::allocate_pinned(bytes);
  constexpr std::size_t align = 4096;
  void* p = std::aligned_alloc(align, (bytes + align - 1) / align * align);
  if (!p) throw out_of_memory(fmt::format("cannot allocate {} bytes of host memory", bytes));
  return p;
}

void host_free(void* p, host_memory_kind kind) noexcept {
  if (kind == host_memory_kind::pinned)
    gpu::free_pinned(p);
  else
    std::free(p);
}

}  // namespace ema
