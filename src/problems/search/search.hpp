// Problem `search`: find the lowest index of a key in an unsorted array of n non-negative 32-bit
// integers, or -1. Source: Nobre et al., 001_9fea77a744af8951.txt ("Redução de Complexidade de Tempo em GPUs"),
// section 2 (the problem, Algorithm 1) and section 3 (Algorithm 2, equations 1 and 2, the
// multi-GPU split of section 3.1). The key is absent by default, the source's worst case.
#pragma once

#include <cstdint>

#include "core/problem.hpp"
#include "measure/host_array.hpp"

namespace ema::search {

/// Where the key is planted (`hit`): absent (the source's worst case), or at a fixed or random place.
enum class hit_mode { none, first, middle, last, random };

/// The parameters, parsed once (problem.cpp).
struct settings {
  hit_mode hit = hit_mode::none;
  std::int64_t copies = 1;  ///< occurrences when planted
  static settings of(const param_set& p);
};

struct input {
  host_array<std::uint32_t> data;  ///< values in [0, 2^31)
  std::uint32_t key = 0;
};

/// The lowest index holding the key, or -1.
using output = std::int64_t;

struct traits {
  static constexpr const char* name = "search";
  using input = search::input;
  using output = search::output;
  static input generate(const point_request& request);
  static output reference(const input& in);
  static outcome check(const input& in, const output& expected, const output& got);
};

using kit = problem_kit<traits>;

}  // namespace ema::search
