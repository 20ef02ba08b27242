// One GPU session: the device flow every CUDA variant shares, written once. A session takes a
// device for one run of a variant (makes it current, uses its stream), allocates accounted buffers
// with the time in the `alloc` phase, opens event-timed phases on the stream (`h2d`, `kernel` or
// named parts of it, `d2h`), and at finish() waits, publishes every phase's time to the run (a
// kernel part, like gauss's `stage1`, also into `kernel`) and frees every buffer in one timed
// `free`. The flow follows the source documents' measurements: Nobre et al., 001_9fea77a744af8951.txt section 3
// (the total includes allocation, copies and synchronisation; the kernel time is the search alone)
// and Zudio et al., 003_7e2665a3d38c50fb.txt section 3.1 (stage 1 and stage 2 timed apart). A multi_session runs
// one session per device, as the multi-GPU split of 001 section 3.1: each phase's time is the
// longest over the devices, since they run at once.
#pragma once

#include <cuda_runtime.h>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/run_context.hpp"
#include "measure/cuda/check.cuh"
#include "measure/cuda/tracked_allocator.cuh"
#include "measure/cuda/timeline.cuh"

namespace ema::cuda {

class session {
 public:
  /// Takes `device` (made current) and its stream for one run of a variant.
  explicit session(run_context& ctx, int device = 0);
  /// Frees what finish() did not (a run that threw), untimed.
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  run_context& context() const { return ctx_; }
  /// For library temporaries (thrust::cuda::par(alloc)): accounted like alloc(), freed by the library.
  tracked_allocator library_allocator() const { return {&ctx_.device_memory()}; }

  /// `count` elements of T on the device, accounted, the time added to `alloc`; nullptr for 0.
  template <class T>
  T* alloc(std::size_t count) {
    return static_cast<T*>(alloc_bytes(count, sizeof(T)));
  }
  /// `count` elements of T in unified (managed) memory, migrated on demand between host and device,
  /// accounted and freed like alloc(); refused as out of memory past the device's free memory, so
  /// a run never oversubscribes it silently.
  template <class T>
  T* alloc_managed(std::size_t count) {
    return static_cast<T*>(managed_bytes(count, sizeof(T)));
  }
  /// Page-locked host memory for results coming back: the device's, reused across runs (created by
  /// the warm-up run, so no timed run pays for it). One region per session: a second call reuses it.
  template <class T>
  T* results(std::size_t count) {
    return static_cast<T*>(result_bytes(count * sizeof(T)));
  }

  /// An event-timed phase on the stream, ended when the scope ends.
  class scope {
   public:
    explicit scope(session& s) : s_(&s) {}
    scope(scope&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    scope& operator=(scope&&) = delete;
    ~scope() noexcept(false) {
      // While an exception unwinds the run, the phase is left open: the session is abandoned.
      if (s_ && std::uncaught_exceptions() == 0) s_->end_phase();
    }

   private:
    session* s_;
  };
  /// `name` is h2d, kernel, d2h or another phase of the metrics table.
  [[nodiscard]] scope phase(std::string_view name);
  /// A named part of the kernel phase (gauss's stage1, stage2): stored under its own name, its time
  /// added to `kernel` too. Opened inside an open `kernel` phase (a breakdown of it: quick-sample's
  /// classify, scatter, ...) it is stored under its name alone, as `kernel` already holds it.
  [[nodiscard]] scope kernel_part(std::string_view name);

  /// A span on the session's timeline that is not a phase: the time of each lap of a name, in
  /// order, comes from lap_times() (the per-root times of a graph search, gauss's profile by kind of
  /// work). `lap_on` times work on another stream of the session's device (gauss's look-ahead
  /// panel stream).
  [[nodiscard]] scope lap(std::string_view name) { return lap_on(name, stream_); }
  [[nodiscard]] scope lap_on(std::string_view name, cudaStream_t stream);
  /// Each lap named `name`, in seconds, in the order they began (waits until the streams passed them).
  std::vector<double> lap_times(std::string_view name);

  /// Asynchronous copies on the session's stream (inside an h2d or d2h phase).
  template <class T>
  void upload(T* device, const T* host, std::size_t count) {
    if (count) EMA_CUDA_CHECK(cudaMemcpyAsync(device, host, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  template <class T>
  void download(T* host, const T* device, std::size_t count) {
    if (count) EMA_CUDA_CHECK(cudaMemcpyAsync(host, device, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
  }
  /// `count` elements `stride` elements apart on the device (a diagonal or a column of a row-major
  /// matrix) into consecutive host elements, on the stream.
  template <class T>
  void download_strided(T* host, const T* device, std::size_t count, std::size_t stride) {
    if (count) EMA_CUDA_CHECK(cudaMemcpy2DAsync(host, sizeof(T), device, stride * sizeof(T), sizeof(T), count, cudaMemcpyDeviceToHost, stream_));
  }
  /// One value read back from the device: copied on the stream after everything enqueued before
  /// it, the stream waited for. The host's turn in a loop the host steers (a frontier's size, a
  /// done flag); results go through download() in the d2h phase.
  template <class T>
  T read(const T* device) {
    T value{};
    EMA_CUDA_CHECK(cudaMemcpyAsync(&value, device, sizeof(T), cudaMemcpyDeviceToHost, stream_));
    wait();
    return value;
  }
  /// One value written to the device on the stream (from pageable memory: the copy has taken the
  /// value when this returns).
  template <class T>
  void write(T* device, const T& value) {
    EMA_CUDA_CHECK(cudaMemcpyAsync(device, &value, sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  /// Sets `count` elements' bytes to `byte` on the stream.
  template <class T>
  void fill_bytes(T* device, int byte, std::size_t count) {
    if (count) EMA_CUDA_CHECK(cudaMemsetAsync(device, byte, count * sizeof(T), stream_));
  }
  /// Waits until the stream has done everything enqueued so far (results on the host are ready).
  void wait();

  /// Waits, and adds every phase's time to the run (once); for a variant that reads more back,
  /// untimed, before its buffers go.
  void publish();
  /// publish() if not done yet, then frees every buffer in one timed `free`.
  void finish();

 private:
  friend class multi_session;
  void* alloc_bytes(std::size_t count, std::size_t size);
  void* managed_bytes(std::size_t count, std::size_t size);
  void* result_bytes(std::size_t bytes);
  void end_phase();
  /// Waits and returns each phase's time, kernel parts also summed into `kernel`.
  std::map<std::string, double> phase_times();
  /// Frees every buffer (untimed here; the caller times it).
  void release() noexcept;

  run_context& ctx_;
  int device_;
  cudaStream_t stream_;
  event_timeline timeline_;
  /// What a span of the timeline is: a phase, a kernel part (its time also added to `kernel`,
  /// unless inside it), or a lap (read by lap_times, never published).
  struct span_kind {
    std::string name;
    bool to_kernel = false;
    bool lap = false;
  };
  std::vector<span_kind> spans_;   // in timeline order
  std::vector<std::size_t> open_;  // spans begun and not ended, innermost last
  std::vector<std::pair<void*, std::size_t>> buffers_;
  bool published_ = false;
};

/// A session per device, for work split over several GPUs at once: each phase's time is the
/// longest over the devices, the buffers of all are freed in one timed `free`.
class multi_session {
 public:
  multi_session(run_context& ctx, int devices);
  session& operator[](std::size_t d) { return *parts_.at(d); }
  std::size_t size() const { return parts_.size(); }
  void finish();

 private:
  run_context& ctx_;
  std::vector<std::unique_ptr<session>> parts_;
};

}  // namespace ema::cuda
