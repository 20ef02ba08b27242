// Problem `sort` (Nogueira, 004_96c7929830a11cf7.txt, Algorithms 3 to 6): the parameters, the keys, the work
// model and the registration; the verifier is in verify.cpp. The keys come from inputs/keys.hpp
// (eight distributions, `dist=`; the study's quicksort with a middle pivot behaves very differently
// across them) or from a file (`input=`, one key per line; n is its count).
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "inputs/keys.hpp"
#include "problems/sort/sort.hpp"

namespace ema::sort {
namespace {

constexpr param_spec params[] = {
    {"type", param_kind::choice, "u32", "key type", "u32|u64|f32"},
    {"dist", param_kind::choice, "uniform",
     "key distribution: uniform, sorted, reversed, equal, few (16 values), organ (up then down), nearly (sorted, 1% swapped), zipf",
     key_distribution_choices},
    {"input", param_kind::path, "", "read the keys from this file, one per line (n is their count)"},
};

// Edge sizes around warps and blocks, and one past 2^20; every distribution in every type.
constexpr std::uint64_t test_sizes[] = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, (1u << 20) + 7};
constexpr const char* test_params[] = {
    "dist=uniform",
    "dist=sorted",
    "dist=reversed",
    "dist=equal",
    "dist=few",
    "dist=organ",
    "dist=nearly",
    "dist=zipf",
    "type=u64,dist=uniform",
    "type=u64,dist=reversed",
    "type=u64,dist=few",
    "type=u64,dist=zipf",
    "type=f32,dist=uniform",
    "type=f32,dist=sorted",
    "type=f32,dist=equal",
    "type=f32,dist=organ",
    "type=f32,dist=nearly",
};

// Shown in the tables where a variant records them: the CUDA-DP variants' device launches and
// nesting depth, the source's host-loop quicksort's iterations.
constexpr summary_desc summaries[] = {
    {"device_launches", "grids launched from the device (quick-cdp, merge-cdp)"},
    {"depth", "the deepest nesting level of device launches reached (quick-cdp, merge-cdp)"},
    {"iterations", "passes of the host loop over all n keys (quick-cuda)"},
};

std::size_t key_bytes(key_type t) { return t == key_type::u64 ? 8 : 4; }

work_model work(std::uint64_t n, const param_set& p) {
  // Every key is read and written at least once; the rate is keys per second.
  const double d = static_cast<double>(n);
  return {2 * d * static_cast<double>(key_bytes(settings::of(p).type)), d};
}

/// A comparison sort's comparisons: at least log₂ n! ≈ n log₂ n, whatever the keys (the lower bound
/// of sorting by comparisons); the radix sorts and thrust's sort of integer keys (a radix sort) do
/// not compare.
constexpr algorithm_work algorithm_floors[] = {
    {"merge", &n_log2_n, "comparisons (n log2 n, the lower bound of sorting by comparisons)"},
    {"quick", &n_log2_n, "comparisons (n log2 n, the lower bound of sorting by comparisons)"},
    {"std", &n_log2_n, "comparisons (n log2 n, the lower bound of sorting by comparisons)"},
};

std::size_t count_in_file(const param_set& p) {
  const auto s = settings::of(p);
  const std::string& path = s.input;
  switch (s.type) {
    case key_type::u64:
      return read_keys<std::uint64_t>(path).size();
    case key_type::f32:
      return read_keys<float>(path).size();
    case key_type::u32:
      break;
  }
  return read_keys<std::uint32_t>(path).size();
}

void validate(const param_set& p, std::span<const std::uint64_t> sizes) {
  const auto s = settings::of(p);
  if (s.input.empty()) return;
  const auto count = count_in_file(p);
  for (auto n : sizes)
    if (n != count)
      throw usage_error(fmt::format("{}: the file holds {} keys, but the point asks n = {} (run with --sizes {})", s.input, count, n, count));
}

std::uint64_t size_from_input(const param_set& p) { return settings::of(p).input.empty() ? 0 : count_in_file(p); }

template <class K>
host_array<K> keys_for(const point_request& r, const std::string& path, std::string& origin) {
  host_array<K> keys(r.n, r.memory);
  if (path.empty()) {
    fill_keys<K>(keys.span(), settings::of(*r.params).dist, r.seed);
    origin = r.params->text("dist");
    return keys;
  }
  const auto read = read_keys<K>(path);
  if (read.size() != r.n)
    throw usage_error(
        fmt::format("{}: the file holds {} keys, but the point asks n = {} (run with --sizes {})", path, read.size(), r.n, read.size()));
  if (!read.empty()) std::memcpy(keys.data(), read.data(), read.size() * sizeof(K));
  origin = path;
  return keys;
}

}  // namespace

settings settings::of(const param_set& p) {
  settings s;
  const auto& t = p.text("type");
  s.type = t == "u64" ? key_type::u64 : t == "f32" ? key_type::f32 : key_type::u32;
  s.dist = key_distribution_from(p.text("dist"));
  s.input = p.text("input");
  return s;
}

input traits::generate(const point_request& r) {
  input in;
  in.n = r.n;
  const auto s = settings::of(*r.params);
  in.type = s.type;
  const std::string& path = s.input;
  switch (in.type) {
    case key_type::u32:
      in.u32 = keys_for<std::uint32_t>(r, path, in.origin);
      break;
    case key_type::u64:
      in.u64 = keys_for<std::uint64_t>(r, path, in.origin);
      break;
    case key_type::f32:
      in.f32 = keys_for<float>(r, path, in.origin);
      break;
  }
  return in;
}

output owned(host_array<std::uint32_t>&& k) {
  output o;
  o.own32 = std::move(k);
  o.keys = o.own32.data();
  return o;
}
output owned(host_array<std::uint64_t>&& k) {
  output o;
  o.own64 = std::move(k);
  o.keys = o.own64.data();
  return o;
}
output owned(host_array<float>&& k) {
  output o;
  o.ownf = std::move(k);
  o.keys = o.ownf.data();
  return o;
}

template <class K>
host_array<K> copy_of(const input& in) {
  host_array<K> k(in.n, host_memory_kind::pageable);
  if (in.n) std::memcpy(k.data(), in.keys<K>(), in.n * sizeof(K));
  return k;
}
template host_array<std::uint32_t> copy_of<std::uint32_t>(const input&);
template host_array<std::uint64_t> copy_of<std::uint64_t>(const input&);
template host_array<float> copy_of<float>(const input&);

}  // namespace ema::sort

EMA_PROBLEM(sort, ema::sort::kit::problem({
                      .title = "sort n keys in non-decreasing order (u32 by default; eight distributions)",
                      .size_meaning = "number of keys",
                      .source = "004_96c7929830a11cf7.txt (Algorithms 3 to 6: quicksort and mergesort in CUDA and OpenMP)",
                      .params = ema::sort::params,
                      .default_sizes = "2^12..2^22",  // 11 sizes an octave apart: enough for a verdict; merge-omp takes 3 s at 2^22 on 2 cores
                      // A GPU sort of 2^22 keys takes about 1 ms on an H200, a third of it fixed costs (a 200 s
                      // calibrated sweep there, growing them to 2^26-2^27, made 8 of 16 firm). merge-cuda, the
                      // slowest, takes about 10 s a run at 2^25 (22 s at 2^26: minutes a point with its repetitions).
                      // Half an octave apart from 2^20.5: their launch-bound start ends near 2-3M keys, and an
                      // octave apart only 4-5 sizes lay past it (too few for a firm verdict).
                      .default_sizes_gpu = "2^12..2^25,1482910..23726566*2",
                      .reference_variant = "std-sort",
                      .work = &ema::sort::work,
                      .rate = {.name = "Mkeys/s", .of_bytes = false, .scale = 1e6, .meaning = "keys sorted"},
                      .op_unit = "keys",
                      .max_size = std::uint64_t{1} << 36,
                      .validate = &ema::sort::validate,
                      .size_from_input = &ema::sort::size_from_input,
                      .test_sizes = ema::sort::test_sizes,
                      .test_params = ema::sort::test_params,
                      .algorithm_floors = ema::sort::algorithm_floors,
                      .summaries = ema::sort::summaries,
                  }));
