// Problem `sort`'s verifier (Nogueira, 004_96c7929830a11cf7.txt: sorting). It involves no sort, so it is
// independent of every variant. Contract, checked on every run:
//   1. the output holds n keys, each not less than the one before it (floats compared as numbers);
//   2. the output is a permutation of the input: the same fingerprint of the multiset of keys
//      (count, and two sums mod 2^64 of independent 64-bit mixes of each key's bits).
// Cost: O(n), one pass over the input once per point and one over each run's output.
// The result: n and the fingerprint, the same for every correct variant.
#include <cstring>
#include <fmt/format.h>

#include "inputs/random.hpp"
#include "problems/sort/sort.hpp"

namespace ema::sort {
namespace {

constexpr std::uint64_t salt_a = 0x736f7274;          // "sort"
constexpr std::uint64_t salt_b = 0x6d756c7469736574;  // "multiset"

template <class K>
std::uint64_t bits_of(K k) {
  if constexpr (std::is_same_v<K, float>) {
    std::uint32_t b;
    std::memcpy(&b, &k, sizeof b);
    return b;
  } else {
    return k;
  }
}

template <class K>
outcome check_typed(const input& in, const fingerprint& expected, const K* got) {
  outcome o;
  const auto f = fingerprint_of(got, in.n);
  o.result_json = fmt::format(R"({{"n":{},"fingerprint":"{:016x}{:016x}"}})", in.n, f.a, f.b);
  for (std::size_t i = 1; i < in.n; ++i)
    if (got[i] < got[i - 1]) {
      o.reason = fmt::format("not sorted: key {} ({}) is less than key {} ({})", i, got[i], i - 1, got[i - 1]);
      return o;
    }
  if (!(f == expected)) {
    o.reason = "not a permutation of the input: the multiset of keys differs (its fingerprint does)";
    return o;
  }
  o.verified = true;
  return o;
}

}  // namespace

template <class K>
fingerprint fingerprint_of(const K* keys, std::size_t n) {
  fingerprint f;
  f.count = n;
  std::uint64_t a = 0, b = 0;
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for reduction(+ : a, b) schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto x = bits_of(keys[i]);
    a += mix64(x ^ salt_a);
    b += mix64(mix64(x ^ salt_b));
  }
  f.a = a;
  f.b = b;
  return f;
}
template fingerprint fingerprint_of<std::uint32_t>(const std::uint32_t*, std::size_t);
template fingerprint fingerprint_of<std::uint64_t>(const std::uint64_t*, std::size_t);
template fingerprint fingerprint_of<float>(const float*, std::size_t);

fingerprint traits::reference(const input& in) {
  switch (in.type) {
    case key_type::u64:
      return fingerprint_of(in.keys<std::uint64_t>(), in.n);
    case key_type::f32:
      return fingerprint_of(in.keys<float>(), in.n);
    case key_type::u32:
      break;
  }
  return fingerprint_of(in.keys<std::uint32_t>(), in.n);
}

outcome traits::check(const input& in, const fingerprint& expected, const output& got) {
  if (!got.keys && in.n) {
    outcome o;
    o.reason = "returned no keys";
    return o;
  }
  switch (in.type) {
    case key_type::u64:
      return check_typed(in, expected, static_cast<const std::uint64_t*>(got.keys));
    case key_type::f32:
      return check_typed(in, expected, static_cast<const float*>(got.keys));
    case key_type::u32:
      break;
  }
  return check_typed(in, expected, static_cast<const std::uint32_t*>(got.keys));
}

}  // namespace ema::sort
