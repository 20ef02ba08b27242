#include "core/registry.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.hpp"

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

const problem_desc* lookup_problem(std::string_view name) {
  for (auto* p : problems())
    if (name == p->name) return p;
  return nullptr;
}

std::span<const renamed_variant> renamed_variants() {
  static constexpr renamed_variant renames[] = {
      {"bfs", "omp-seed", "omp-listing"},     {"bfs", "cuda-seed", "cuda-listing"},    {"sssp", "omp-seed", "omp-listing"},
      {"sssp", "cuda-seed", "cuda-listing"},  {"search", "cuda-seed", "cuda-listing"}, {"stencil", "cuda-seed", "cuda-listing"},
      {"rqa", "seed-seq", "microstates-seq"}, {"rqa", "seed-omp", "microstates-omp"},  {"rqa", "seed-cuda", "microstates-cuda"},
  };
  return renames;
}

std::string_view current_variant_name(std::string_view problem, std::string_view name) {
  for (const auto& r : renamed_variants())
    if (problem == r.problem && name == r.formerly) return r.now;
  return name;
}

const variant_desc* lookup_variant(std::string_view problem, std::string_view name) {
  name = current_variant_name(problem, name);
  for (auto* v : variants())
    if (problem == v->problem && name == v->name) return v;
  return nullptr;
}

variant_identity identity_of(std::string_view problem, std::string_view variant) {
  variant_identity id{std::string(variant), "", std::nullopt, variant_role::unset};
  if (const auto* v = lookup_variant(problem, variant)) {
    id.algorithm = v->algorithm;
    id.back_end = v->backend;
    id.role = v->role;
  }
  return id;
}

double working_set_bytes(const problem_desc& p, std::uint64_t n, const param_set& params) {
  return p.working_set ? p.working_set(n, params) : p.work(n, params).bytes;
}

std::vector<std::function<double(double)>> work_floors(const problem_desc& p, std::shared_ptr<const param_set> params, std::string_view algorithm) {
  std::vector<std::function<double(double)>> out;
  if (!p.work || !params) return out;
  if (std::any_of(p.estimators.begin(), p.estimators.end(), [&](const char* a) { return algorithm == a; })) return out;
  const auto work = p.work;
  out.push_back([work, params](double n) { return work(static_cast<std::uint64_t>(n), *params).bytes; });
  out.push_back([work, params](double n) { return work(static_cast<std::uint64_t>(n), *params).ops; });
  for (const auto& a : p.algorithm_floors)
    if (algorithm == a.algorithm) out.push_back(a.ops);
  return out;
}

std::string reference_algorithm(std::string_view problem) {
  const auto* p = lookup_problem(problem);
  const auto* ref = p && p->reference_variant ? lookup_variant(problem, p->reference_variant) : nullptr;
  return ref ? std::string(ref->algorithm) : std::string();
}

std::string speedup_baseline(std::string_view variant, backend against, std::span<const variant_identity> present,
                             std::string_view reference_algorithm) {
  auto by_name = [&](std::string_view name) -> const variant_identity* {
    for (const auto& p : present)
      if (p.name == name) return &p;
    return nullptr;
  };
  const auto* v = by_name(variant);
  if (!v || v->algorithm.empty()) {
    const auto* named = by_name(to_string(against));
    return named ? named->name : std::string();
  }
  // The variants of `algorithm` on `against`, the source's first.
  auto of_algorithm = [&](std::string_view algorithm) -> std::string {
    const variant_identity* best = nullptr;
    for (const auto& c : present) {
      if (c.back_end != against || c.algorithm != algorithm) continue;
      if (!best || (c.role == variant_role::source && best->role != variant_role::source)) best = &c;
    }
    return best ? best->name : std::string();
  };
  if (auto own = of_algorithm(v->algorithm); !own.empty()) return own;
  return reference_algorithm.empty() ? std::string() : of_algorithm(reference_algorithm);
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
  name = current_variant_name(problem, name);
  std::vector<std::string_view> names;
  for (auto* v : variants_of(problem)) {
    if (name == v->name) return *v;
    names.emplace_back(v->name);
  }
  throw usage_error(fmt::format("unknown variant '{}' of problem {}; valid variants: {}", name, problem, fmt::join(names, ", ")));
}

double n_log2_n(double n) { return n > 1 ? n * std::log2(n) : n; }

}  // namespace ema
