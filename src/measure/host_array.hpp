// Host buffers for problem inputs. A CUDA variant's input lives in pinned (page-locked) memory so
// its host-to-device copies run at full speed and asynchronously, as the multi-GPU split of
// Nobre et al., 001_9fea77a744af8951.txt section 3.1 needs; a CPU variant's input lives in ordinary pages.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/host_memory_kind.hpp"

namespace ema {

/// Allocates `bytes` of host memory of the given kind (64-byte aligned at least).
/// Throws out_of_memory when the allocation fails.
void* host_allocate(std::size_t bytes, host_memory_kind kind);
/// count * size in bytes; out_of_memory when the product does not fit in size_t.
std::size_t array_bytes(std::size_t count, std::size_t size);
void host_free(void* p, host_memory_kind kind) noexcept;

/// A move-only array of trivially copyable T in host memory of a chosen kind. Elements are
/// left uninitialised: generators write every element.
template <class T>
class host_array {
 public:
  host_array() = default;
  host_array(std::size_t n, host_memory_kind kind)
      : data_(n ? static_cast<T*>(host_allocate(array_bytes(n, sizeof(T)), kind)) : nullptr), size_(n), kind_(kind) {}
  host_array(host_array&& o) noexcept { swap(o); }
  host_array& operator=(host_array&& o) noexcept {
    host_array tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  host_array(const host_array&) = delete;
  host_array& operator=(const host_array&) = delete;
  ~host_array() {
    if (data_) host_free(data_, kind_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  host_memory_kind kind() const { return kind_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  void swap(host_array& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(kind_, o.kind_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
  host_memory_kind kind_ = host_memory_kind::pageable;
};

/// An allocator of host memory of a chosen kind, for inputs that are vectors: a CUDA variant's
/// series in pinned memory, a CPU variant's in ordinary pages, one type for both.
template <class T>
struct host_allocator {
  using value_type = T;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  host_memory_kind kind = host_memory_kind::pageable;

  host_allocator() = default;
  explicit host_allocator(host_memory_kind k) : kind(k) {}
  template <class U>
  host_allocator(const host_allocator<U>& o) : kind(o.kind) {}
  T* allocate(std::size_t n) { return static_cast<T*>(host_allocate(array_bytes(n, sizeof(T)), kind)); }
  void deallocate(T* p, std::size_t) noexcept { host_free(p, kind); }
  template <class U>
  bool operator==(const host_allocator<U>& o) const {
    return kind == o.kind;
  }
};

template <class T>
using host_vector = std::vector<T, host_allocator<T>>;

}  // namespace ema
