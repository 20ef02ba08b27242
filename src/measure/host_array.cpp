#include "measure/host_array.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <sys/mman.h>

#include "core/errors.hpp"
#include "measure/gpu.hpp"

namespace ema {

std::size_t array_bytes(std::size_t count, std::size_t size) {
  if (size && count > std::numeric_limits<std::size_t>::max() / size)
    throw out_of_memory(fmt::format("cannot allocate {} elements of {} bytes: the size overflows", count, size));
  return count * size;
}

void* host_allocate(std::size_t bytes, host_memory_kind kind) {
  if (kind == host_memory_kind::pinned) return gpu::allocate_pinned(bytes);
  // Large buffers are aligned to and backed by 2 MiB transparent huge pages where the kernel
  // allows it: a scan over gigabytes of 4 KiB pages spends its time in page walks.
  constexpr std::size_t huge = std::size_t{2} << 20;
  const std::size_t align = bytes >= huge ? huge : 4096;
  if (bytes > std::numeric_limits<std::size_t>::max() - align) throw out_of_memory(fmt::format("cannot allocate {} bytes of host memory", bytes));
  const std::size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (!p) throw out_of_memory(fmt::format("cannot allocate {} bytes of host memory", bytes));
  if (align == huge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: ignored where THP is off
  return p;
}

void host_free(void* p, host_memory_kind kind) noexcept {
  if (kind == host_memory_kind::pinned)
    gpu::free_pinned(p);
  else
    std::free(p);
}

}  // namespace ema
