// Where the source's microstates lie (microstates.hpp): drawn from the point's seed, the same for every
// microstates-* variant and for the reference.
#include "inputs/random.hpp"
#include "problems/rqa/rqa.hpp"

namespace ema::rqa {
namespace {
constexpr std::uint64_t micro_stream = 0x6d69637230;  // "micr0"
}  // namespace

std::pair<std::size_t, std::size_t> microstate_at(const input& in, std::uint64_t s) {
  const std::size_t span = in.vectors() - in.s.q + 1;
  return {random_below(in.seed ^ micro_stream, 2 * s, span), random_below(in.seed ^ micro_stream, 2 * s + 1, span)};
}

}  // namespace ema::rqa
