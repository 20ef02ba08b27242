// Which variant a speedup is taken against. "vs seq" and "vs omp" compare a variant with the
// experiment's `seq` or `omp` variant; where a problem names its variants by family (rqa's
// exact-seq, exact-omp, exact-cuda; seed-*; motif-*), a variant is compared with its own family's
// (exact-cuda against exact-seq, not against the microstate estimator), which is what a speedup of
// one algorithm on several back ends means.
#pragma once

#include <string>
#include <string_view>

namespace ema {

/// A variant's family: its name up to and including its last '-' ("exact-cuda" -> "exact-"), or
/// "" for a name without one.
inline std::string family_of(std::string_view variant) {
  const auto dash = variant.rfind('-');
  return dash == std::string_view::npos ? std::string() : std::string(variant.substr(0, dash + 1));
}

/// The variant that `variant`'s speedup against `ref` ("seq" or "omp") is taken from: its family's
/// `ref` (exact-seq for exact-cuda) when present(name) says the experiment has it, else `ref`.
template <class Present>
std::string baseline_for(std::string_view variant, std::string_view ref, Present&& present) {
  const std::string family = family_of(variant);
  if (!family.empty()) {
    std::string own = family + std::string(ref);
    if (present(own)) return own;
  }
  return std::string(ref);
}

}  // namespace ema
