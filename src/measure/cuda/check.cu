#include "measure/cuda/check.cuh"

#include <cstdio>
#include <string>
#include <stdexcept>

#include "core/errors.hpp"

namespace ema::cuda {

void fail(cudaError_t error, const char* expr, const char* file, int line) {
  auto msg =
      std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " + cudaGetErrorString(error) + " (" + cudaGetErrorName(error) + ")";
  if (error == cudaErrorMemoryAllocation) throw out_of_memory(msg);
  throw std::runtime_error(msg);
}

void report(cudaError_t error, const char* expr, const char* file, int line) noexcept {
  std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, cudaGetErrorString(error));
}

}  // namespace ema::cuda
