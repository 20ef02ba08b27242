// Problem `sort`: sort n keys in non-decreasing order, the quicksort and mergesort study of
// Nogueira, 004_96c7929830a11cf7.txt (Algorithms 3 to 6: "Análise de Desempenho e Consumo Energético de
// Aplicações Recursivas em Ambientes OpenMP, CUDA e CUDA-DP"). Keys are u32 (default), u64 or f32,
// drawn from one of eight distributions (inputs/keys.hpp), or read from a file.
//
// Every run is verified against the input, by a check that involves no sort: the output is
// non-decreasing and is a permutation of the input (the same count and the same order-independent
// fingerprint of the multiset of keys).
#pragma once

#include <cstdint>
#include <string>

#include "core/problem.hpp"
#include "inputs/keys.hpp"
#include "measure/host_array.hpp"

namespace ema::sort {

enum class key_type { u32, u64, f32 };

/// The parameters, parsed once (problem.cpp): the key type, the distribution the keys are drawn
/// from, and the file they are read from instead ("" for none).
struct settings {
  key_type type = key_type::u32;
  key_distribution dist = key_distribution::uniform;
  std::string input;
  /// Throws usage_error for a distribution it does not know.
  static settings of(const param_set& p);
};

struct input {
  std::size_t n = 0;
  key_type type = key_type::u32;
  host_array<std::uint32_t> u32;
  host_array<std::uint64_t> u64;
  host_array<float> f32;
  std::string origin;  ///< the distribution's name or the file's path

  template <class K>
  const K* keys() const;
};

template <>
inline const std::uint32_t* input::keys<std::uint32_t>() const {
  return u32.data();
}
template <>
inline const std::uint64_t* input::keys<std::uint64_t>() const {
  return u64.data();
}
template <>
inline const float* input::keys<float>() const {
  return f32.data();
}

/// A variant's answer: the n sorted keys, owned here (CPU variants) or in a GPU session's
/// page-locked results region (valid until the next run).
struct output {
  host_array<std::uint32_t> own32;
  host_array<std::uint64_t> own64;
  host_array<float> ownf;
  const void* keys = nullptr;
};

/// An order-independent fingerprint of a multiset of keys: two sums (mod 2^64) of independent
/// 64-bit mixes of each key's bits. Two multisets that differ agree by chance with probability
/// about 2^-128 per pair of sums.
struct fingerprint {
  std::size_t count = 0;
  std::uint64_t a = 0, b = 0;
  bool operator==(const fingerprint&) const = default;
};

template <class K>
fingerprint fingerprint_of(const K* keys, std::size_t n);

struct traits {
  static constexpr const char* name = "sort";
  using input = sort::input;
  using output = sort::output;
  static input generate(const point_request& request);
  static fingerprint reference(const input& in);
  static outcome check(const input& in, const fingerprint& expected, const output& got);
};

using kit = problem_kit<traits>;

/// Dispatches a variant templated on the key type to the input's type.
template <template <class> class Variant>
output run_typed(const input& in, run_context& ctx) {
  switch (in.type) {
    case key_type::u64:
      return Variant<std::uint64_t>::run(in, ctx);
    case key_type::f32:
      return Variant<float>::run(in, ctx);
    case key_type::u32:
      break;
  }
  return Variant<std::uint32_t>::run(in, ctx);
}

/// Wraps keys owned by the variant as its output.
output owned(host_array<std::uint32_t>&& k);
output owned(host_array<std::uint64_t>&& k);
output owned(host_array<float>&& k);

/// A copy of the input's keys in ordinary pages, for a variant that sorts in place.
template <class K>
host_array<K> copy_of(const input& in);

}  // namespace ema::sort
