#include "measure/cuda/session.cuh"

#include <algorithm>
#include <string>

#include "core/errors.hpp"
#include "measure/host_array.hpp"
#include "measure/cuda/resources.cuh"

namespace ema::cuda {
namespace {

int current(int device) {
  make_current(device);
  return device;
}

}  // namespace

session::session(run_context& ctx, int device) : ctx_(ctx), device_(current(device)), stream_(cuda::stream(device)), timeline_(stream_) {}

session::~session() { release(); }

void* session::alloc_bytes(std::size_t count, std::size_t size) {
  const std::size_t bytes = array_bytes(count, size);
  if (!bytes) return nullptr;
  host_phase p(ctx_, "alloc");
  make_current(device_);
  void* ptr = nullptr;
  EMA_CUDA_CHECK(cudaMalloc(&ptr, bytes));
  buffers_.emplace_back(ptr, bytes);
  ctx_.device_memory().allocated(bytes);
  return ptr;
}

void* session::managed_bytes(std::size_t count, std::size_t size) {
  const std::size_t bytes = array_bytes(count, size);
  if (!bytes) return nullptr;
  host_phase p(ctx_, "alloc");
  make_current(device_);
  std::size_t free = 0, total = 0;
  EMA_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (bytes > free)
    throw out_of_memory("cannot allocate " + std::to_string(bytes) + " bytes of unified memory: the device has " + std::to_string(free) +
                        " bytes free");
  void* ptr = nullptr;
  EMA_CUDA_CHECK(cudaMallocManaged(&ptr, bytes));
  buffers_.emplace_back(ptr, bytes);
  ctx_.device_memory().allocated(bytes);
  return ptr;
}

void* session::result_bytes(std::size_t bytes) { return pinned_scratch(device_, std::max<std::size_t>(bytes, 1)); }

session::scope session::phase(std::string_view name) {
  spans_.push_back({std::string(name)});
  open_.push_back(spans_.size() - 1);
  timeline_.begin();  // the names live in spans_, in the same order
  return scope(*this);
}

session::scope session::kernel_part(std::string_view name) {
  const bool inside_kernel = std::any_of(open_.begin(), open_.end(), [&](std::size_t i) { return spans_[i].name == "kernel"; });
  spans_.push_back({std::string(name), !inside_kernel});
  open_.push_back(spans_.size() - 1);
  timeline_.begin();
  return scope(*this);
}

session::scope session::lap_on(std::string_view name, cudaStream_t stream) {
  spans_.push_back({std::string(name), false, true});
  open_.push_back(spans_.size() - 1);
  timeline_.begin(stream);
  return scope(*this);
}

std::vector<double> session::lap_times(std::string_view name) {
  make_current(device_);
  const auto t = timeline_.elapsed();
  std::vector<double> out;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (spans_[i].lap && spans_[i].name == name) out.push_back(t[i]);
  return out;
}

void session::end_phase() {
  open_.pop_back();
  timeline_.end();
}

void session::wait() { EMA_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

std::map<std::string, double> session::phase_times() {
  make_current(device_);
  const auto t = timeline_.elapsed();
  std::map<std::string, double> out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (spans_[i].lap) continue;
    out[spans_[i].name] += t[i];
    if (spans_[i].to_kernel) out["kernel"] += t[i];
  }
  return out;
}

void session::release() noexcept {
  if (buffers_.empty()) return;
  try {
    make_current(device_);
  } catch (...) {
  }
  for (auto [ptr, bytes] : buffers_) {
    EMA_CUDA_CHECK_NOTHROW(cudaFree(ptr));
    ctx_.device_memory().released(bytes);
  }
  buffers_.clear();
}

void session::publish() {
  if (published_) return;
  for (const auto& [name, seconds] : phase_times()) ctx_.add_phase(name, seconds);
  published_ = true;
}

void session::finish() {
  publish();
  host_phase p(ctx_, "free");
  release();
}

multi_session::multi_session(run_context& ctx, int devices) : ctx_(ctx) {
  for (int d = 0; d < devices; ++d) parts_.push_back(std::make_unique<session>(ctx, d));
}

void multi_session::finish() {
  std::map<std::string, double> longest;
  for (auto& s : parts_)
    for (const auto& [name, seconds] : s->phase_times()) longest[name] = std::max(longest[name], seconds);
  for (const auto& [name, seconds] : longest) ctx_.add_phase(name, seconds);
  {
    host_phase p(ctx_, "free");
    for (auto& s : parts_) s->release();
  }
  EMA_CUDA_CHECK(cudaSetDevice(0));
}

}  // namespace ema::cuda
