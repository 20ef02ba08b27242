// rqa / exact-omp — the exact quantifiers with OpenMP: the plot's rows are cut into bands (four per
// thread, for balance), each band counted independently by one thread and the bands merged with
// the lines that cross their borders carried across (bands.hpp), so the histograms are exactly
// exact-seq's. Θ(N^2 m) work, Θ(bands · N) memory.
#include <algorithm>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/rqa/bands.hpp"

namespace ema::rqa {
namespace {

output exact_bands(const input& in, run_context& ctx) {
  const std::size_t N = in.vectors();
  const std::size_t threads = static_cast<std::size_t>(omp_get_max_threads());
  const std::size_t count = std::max<std::size_t>(1, std::min(N, 4 * threads));
  ctx.processors(static_cast<std::int64_t>(threads));
  ctx.note("bands", static_cast<std::int64_t>(count));
  std::vector<band_counter> bands;
  bands.reserve(count);
  for (std::size_t b = 0; b < count; ++b) bands.emplace_back(N, N * b / count, N * (b + 1) / count);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t bb = 0; bb < static_cast<std::int64_t>(count); ++bb) {
    const auto b = static_cast<std::size_t>(bb);
    count_rows(in, bands[b], N * b / count, N * (b + 1) / count);
  }
  return {merge_bands(N, bands)};
}

}  // namespace
}  // namespace ema::rqa

EMA_VARIANT(rqa_exact_omp, {"rqa", "exact-omp", ema::backend::omp,
                            "exact quantifiers, bands of rows per thread, lines carried across bands (OpenMP)",
                            "ours (the exact quantities 000_d2722dce0c10bad2.txt estimates)",
                            &ema::rqa::kit::run<&ema::rqa::exact_bands>});
