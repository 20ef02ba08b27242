#include "problems/rqa/bands.hpp"

namespace ema::rqa {

band_counter::band_counter(std::size_t n, std::size_t r0, std::size_t) : n_(n), r0_(r0), row_(r0) {
  auto init = [](lines& l, std::size_t count, std::size_t n) {
    l.open.assign(count, 0);
    l.top.assign(count, 0);
    l.bottom.assign(count, 0);
    l.open_at_top.assign(count, 0);
    l.full.assign(count, 0);
    l.hist.assign(n + 1, 0);
  };
  init(vertical_, n, n);
  init(diagonal_, n ? 2 * n - 1 : 0, n);
}

void band_counter::finish() {
  for (lines* l : {&vertical_, &diagonal_})
    for (std::size_t k = 0; k < l->open.size(); ++k) {
      auto& len = l->open[k];
      if (!len) continue;
      if (l->open_at_top[k]) l->top[k] = len, l->full[k] = 1;
      else l->bottom[k] = len;
      len = 0;
    }
}

histograms merge_bands(std::size_t n, const std::vector<band_counter>& bands) {
  histograms h;
  h.diagonal.assign(n + 1, 0);
  h.vertical.assign(n + 1, 0);
  auto merge = [&](auto pick, std::vector<std::uint64_t>& hist) {
    const std::size_t count = bands.empty() ? 0 : pick(bands.front()).top.size();
    for (const auto& b : bands)
      for (std::size_t l = 1; l <= n; ++l) hist[l] += pick(b).hist[l];
    for (std::size_t k = 0; k < count; ++k) {
      std::uint64_t carry = 0;
      for (const auto& b : bands) {
        const auto& lines = pick(b);
        if (lines.full[k]) {
          carry += lines.top[k];
          continue;
        }
        if (carry + lines.top[k]) ++hist[carry + lines.top[k]];
        carry = lines.bottom[k];
      }
      if (carry) ++hist[carry];
    }
  };
  merge([](const band_counter& b) -> const band_counter::lines& { return b.vertical(); }, h.vertical);
  merge([](const band_counter& b) -> const band_counter::lines& { return b.diagonal(); }, h.diagonal);
  for (const auto& b : bands) h.recurrent += b.recurrent(), h.cells += b.cells();
  return h;
}

}  // namespace ema::rqa
