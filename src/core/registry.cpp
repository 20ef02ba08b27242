#include "core/registry.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.hpp"
#include "measure/gpu.hpp"

// Bounds of the linker sections filled by EMA_PROBLEM and EMA_VARIANT. Weak, so a binary with no
// registration at all still links (the lists are then empty).
extern "C" {
extern const ema::problem_desc* const __start_ema_problems[] __attribute__((weak));
extern const ema::problem_desc* const __stop_ema_problems[] __attribute__((weak));
extern const ema::variant_desc* const __start_ema_variants[] __attribute__((weak));
extern const ema::variant_desc* const __stop_ema_variants[] __attribute__((weak));
}

namespace ema {
namespace {

template <class T>
std::vector<const T*> collect(const T* const* begin, const T* const* end) {
  std::vector<const T*> out;
  if (begin && end) out.assign(begin, end);
  return out;
}

}  // namespace

const std::vector<const problem_desc*>& problems() {
  static const auto list = [] {
    auto v = collect(__start_ema_problems, __stop_ema_problems);
    std::sort(v.begin(), v.end(), [](auto a, auto b) { return std::string_view(a->name) < b->name; });
    return v;
  }();
  return list;
}

const std::vector<const variant_desc*>& variants() {
  static const auto list = [] {
    auto v = collect(__start_ema_variants, __stop_ema_variants);
    std::sort(v.begin(), v.end(), [](auto a, auto b) {
      auto pa = std::string_view(a->problem), pb = std::string_view(b->problem);
      if (pa != pb) return pa < pb;
      if (a->backend != b->backend) return a->backend < b->backend;
      return std::string_view(a->name) < b->name;
    });
    return v;
  }();
  return list;
}

std::vector<const variant_desc*> variants_of(std::string_view problem) {
  std::vector<const variant_desc*> out;
  for (auto* v : variants())
    if (problem == v->problem) out.push_back(v);
  return out;
}

const problem_desc& find_problem(std::string_view name) {
  std::vector<std::string_view> names;
  for (auto* p : problems()) {
    if (name == p->name) return *p;
    names.emplace_back(p->name);
  }
  throw usage_error(fmt::format("unknown problem '{}'; valid problems: {}", name, fmt::join(names, ", ")));
}

const variant_desc& find_variant(std::string_view problem, std::string_view name) {
  std::vector<std::string_view> names;
  for (auto* v : variants_of(problem)) {
    if (name == v->name) return *v;
    names.emplace_back(v->name);
  }
  throw usage_error(
      fmt::format("unknown variant '{}' of problem {}; valid variants: {}", name, problem, fmt::join(names, ", ")));
}

availability available(const variant_desc& v) {
  if (uses_gpu(v.backend) && gpu::device_count() == 0) return {false, gpu::query().unavailable};
  return {};
}

}  // namespace ema
