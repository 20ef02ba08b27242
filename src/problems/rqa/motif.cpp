// The motif estimator's host side (motif.hpp): a batch of drawn cells counted, and the batches
// turned into estimates with their standard errors. Shared by motif-seq, motif-omp and, for the
// estimates, motif-cuda.
#include <cmath>

#include "problems/rqa/motif.hpp"

namespace ema::rqa {

motif_counts motif_batch(const input& in, std::uint64_t batch) {
  const std::uint64_t per = in.s.cells / motif_batches;
  motif_counts c;
  const plot p = in.view();
  if (p.N == 0 || p.N <= p.w) return c;
  for (std::uint64_t k = 0; k < per; ++k) {
    const auto s = draw_motif(p, in.seed, batch, k, in.s.vmin, in.s.lmin);
    c.recurrent += s.recurrent, c.on_vertical += s.on_vertical, c.on_diagonal += s.on_diagonal;
    if (s.vline) ++c.vstarts, c.vlength += s.vline;
    if (s.dline) {
      ++c.dstarts;
      c.dlength += s.dline;
      if (c.dhist.size() <= s.dline) c.dhist.resize(s.dline + 1, 0);
      ++c.dhist[s.dline];
    }
  }
  return c;
}

motif_estimate motif_from_batches(const input& in, const std::vector<motif_counts>& batches) {
  motif_estimate m;
  auto ratio = [&](auto part, auto whole) {
    estimate e;
    e.samples = in.s.cells / motif_batches * batches.size();
    std::uint64_t num = 0, den = 0;
    for (const auto& b : batches) num += part(b), den += whole(b);
    e.used = den;
    if (!den) return e;
    e.value = static_cast<double>(num) / static_cast<double>(den);
    // Batch means of the ratio estimator: the spread of the batches' residuals num_b - R den_b.
    double ss = 0;
    const double mean_den = static_cast<double>(den) / static_cast<double>(batches.size());
    for (const auto& b : batches) {
      const double r = static_cast<double>(part(b)) - e.value * static_cast<double>(whole(b));
      ss += r * r;
    }
    const double B = static_cast<double>(batches.size());
    e.se = B > 1 ? std::sqrt(ss / (B - 1) / B) / mean_den : 0;
    return e;
  };
  m.lam = ratio([](const motif_counts& b) { return b.on_vertical; }, [](const motif_counts& b) { return b.recurrent; });
  m.det = ratio([](const motif_counts& b) { return b.on_diagonal; }, [](const motif_counts& b) { return b.recurrent; });
  m.tt = ratio([](const motif_counts& b) { return b.vlength; }, [](const motif_counts& b) { return b.vstarts; });
  m.l = ratio([](const motif_counts& b) { return b.dlength; }, [](const motif_counts& b) { return b.dstarts; });
  std::vector<std::uint64_t> all;
  for (const auto& b : batches) {
    if (all.size() < b.dhist.size()) all.resize(b.dhist.size(), 0);
    for (std::size_t l = 0; l < b.dhist.size(); ++l) all[l] += b.dhist[l];
  }
  m.entr = plugin_entropy(all);
  return m;
}

double plugin_entropy(const std::vector<std::uint64_t>& counts) {
  std::uint64_t total = 0;
  for (auto c : counts) total += c;
  double h = 0;
  for (auto c : counts)
    if (c) {
      const double p = static_cast<double>(c) / static_cast<double>(total);
      h -= p * std::log(p);
    }
  return h;
}

}  // namespace ema::rqa
