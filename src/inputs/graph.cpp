#include "inputs/graph.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

#include "core/errors.hpp"
#include "inputs/random.hpp"

namespace ema {
namespace {

/// A double uniform in [0, 1) from the i-th draw of `seed`.
double unit_at(std::uint64_t seed, std::uint64_t i) { return static_cast<double>(random_at(seed, i) >> 11) * 0x1.0p-53; }

constexpr std::uint64_t weight_stream = 0x77656967687473ull;  // "weights"
constexpr std::uint64_t shuffle_stream = 0x7368756666ull;     // "shuff"

/// A seeded permutation of [0, n) (Fisher-Yates from the seed's stream).
std::vector<std::uint32_t> permutation(std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> p(n);
  std::iota(p.begin(), p.end(), 0u);
  for (std::uint64_t i = n; i > 1; --i) std::swap(p[i - 1], p[random_below(seed ^ shuffle_stream, i, i)]);
  return p;
}

}  // namespace

graph_kind graph_kind_from(std::string_view name) {
  if (name == "kron") return graph_kind::kron;
  if (name == "urand") return graph_kind::urand;
  if (name == "grid") return graph_kind::grid;
  throw usage_error(fmt::format("unknown graph '{}': kron, urand or grid, or a file's path", name));
}

std::vector<graph_edge> generate_edges(graph_kind kind, std::uint64_t n, int degree, std::uint64_t seed, bool weighted) {
  if (n > (std::uint64_t{1} << 32) - 1) throw usage_error(fmt::format("{} vertices: vertex ids are 32-bit (at most 2^32 - 1)", n));
  std::vector<graph_edge> edges;
  if (n == 0) return edges;
  if (kind == graph_kind::grid) {
    const auto rows = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::sqrt(static_cast<double>(n))));
    const std::uint64_t cols = (n + rows - 1) / rows;
    for (std::uint64_t id = 0; id < n; ++id) {
      const std::uint64_t r = id / cols, c = id % cols;
      if (c + 1 < cols && id + 1 < n) edges.push_back({static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(id + 1), 1});
      if (r + 1 < rows && id + cols < n) edges.push_back({static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(id + cols), 1});
    }
  } else {
    if (degree < 1) throw usage_error(fmt::format("degree {}: at least 1 edge per vertex", degree));
    const std::uint64_t m = n * static_cast<std::uint64_t>(degree);
    edges.resize(m);
    if (kind == graph_kind::kron) {
      if (n & (n - 1)) throw usage_error(fmt::format("kron needs a power of two vertices (n = 2^scale), got {}", n));
      const int scale = static_cast<int>(std::log2(static_cast<double>(n)) + 0.5);
      const auto perm = permutation(n, seed);
      constexpr double a = 0.57, b = 0.19, c = 0.19;
#pragma omp parallel for schedule(static)
      for (std::uint64_t e = 0; e < m; ++e) {
        std::uint64_t u = 0, v = 0;
        for (int level = 0; level < scale; ++level) {
          const double r = unit_at(seed, e * 64 + static_cast<std::uint64_t>(level));
          const bool down = r >= a + b, right = (r >= a && r < a + b) || r >= a + b + c;
          u = 2 * u + down;
          v = 2 * v + right;
        }
        edges[e] = {perm[u], perm[v], 1};
      }
    } else {
#pragma omp parallel for schedule(static)
      for (std::uint64_t e = 0; e < m; ++e)
        edges[e] = {static_cast<std::uint32_t>(random_below(seed, 2 * e, n)), static_cast<std::uint32_t>(random_below(seed, 2 * e + 1, n)), 1};
    }
  }
  if (weighted) {
    const std::uint64_t m = edges.size();
#pragma omp parallel for schedule(static)
    for (std::uint64_t e = 0; e < m; ++e) edges[e].w = 1 + static_cast<std::uint32_t>(random_below(seed ^ weight_stream, e, 255));
  }
  return edges;
}

csr_graph build_csr(std::uint64_t n, std::vector<graph_edge> edges, bool directed, bool weighted) {
  csr_graph g;
  g.n = n;
  g.directed = directed;
  // Count each vertex's entries, both directions where undirected, no self-loops; then place them.
  // In parallel (atomic counters): the order within a row depends on the threads, but each row is
  // sorted and its duplicates merged below, so the graph does not.
  const auto m = static_cast<std::int64_t>(edges.size());
  std::vector<std::uint64_t> count(n + 1, 0);
  bool past = false;
#pragma omp parallel for schedule(static) reduction(|| : past)
  for (std::int64_t k = 0; k < m; ++k) {
    const auto& e = edges[static_cast<std::size_t>(k)];
    if (e.u >= n || e.v >= n) {
      past = true;
      continue;
    }
    if (e.u == e.v) continue;
    std::atomic_ref<std::uint64_t>(count[e.u]).fetch_add(1, std::memory_order_relaxed);
    if (!directed) std::atomic_ref<std::uint64_t>(count[e.v]).fetch_add(1, std::memory_order_relaxed);
  }
  if (past)
    for (const auto& e : edges)
      if (e.u >= n || e.v >= n) throw usage_error(fmt::format("edge {} -> {} names a vertex past the graph's {}", e.u, e.v, n));
  std::vector<std::uint64_t> start(n + 1, 0);
  for (std::uint64_t v = 0; v < n; ++v) start[v + 1] = start[v] + count[v];
  std::vector<std::uint32_t> nb(start[n]), w(weighted ? start[n] : 0);
  auto at = start;
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < m; ++k) {
    const auto& e = edges[static_cast<std::size_t>(k)];
    if (e.u == e.v) continue;
    const auto i = std::atomic_ref<std::uint64_t>(at[e.u]).fetch_add(1, std::memory_order_relaxed);
    nb[i] = e.v;
    if (weighted) w[i] = e.w;
    if (!directed) {
      const auto j = std::atomic_ref<std::uint64_t>(at[e.v]).fetch_add(1, std::memory_order_relaxed);
      nb[j] = e.u;
      if (weighted) w[j] = e.w;
    }
  }
  edges.clear();
  edges.shrink_to_fit();
  // Sort each vertex's entries by neighbour (then weight) and merge duplicates, in place.
  std::vector<std::uint64_t> kept(n, 0);
#pragma omp parallel for schedule(dynamic, 1024)
  for (std::uint64_t v = 0; v < n; ++v) {
    const std::uint64_t lo = start[v], hi = start[v + 1];
    if (hi == lo) continue;
    if (weighted) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> list(hi - lo);
      for (std::uint64_t i = lo; i < hi; ++i) list[i - lo] = {nb[i], w[i]};
      std::sort(list.begin(), list.end());
      std::uint64_t out = lo;
      for (std::size_t i = 0; i < list.size(); ++i)
        if (i == 0 || list[i].first != list[i - 1].first) nb[out] = list[i].first, w[out] = list[i].second, ++out;  // least weight first
      kept[v] = out - lo;
    } else {
      std::sort(nb.begin() + static_cast<std::ptrdiff_t>(lo), nb.begin() + static_cast<std::ptrdiff_t>(hi));
      const auto end = std::unique(nb.begin() + static_cast<std::ptrdiff_t>(lo), nb.begin() + static_cast<std::ptrdiff_t>(hi));
      kept[v] = static_cast<std::uint64_t>(end - (nb.begin() + static_cast<std::ptrdiff_t>(lo)));
    }
  }
  // Compact.
  g.offsets.assign(n + 1, 0);
  for (std::uint64_t v = 0; v < n; ++v) g.offsets[v + 1] = g.offsets[v] + kept[v];
  g.neighbours.resize(g.offsets[n]);
  if (weighted) g.weights.resize(g.offsets[n]);
  const auto vertices = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t vi = 0; vi < vertices; ++vi) {
    const auto v = static_cast<std::uint64_t>(vi);
    std::copy_n(nb.begin() + static_cast<std::ptrdiff_t>(start[v]), kept[v], g.neighbours.begin() + static_cast<std::ptrdiff_t>(g.offsets[v]));
    if (weighted)
      std::copy_n(w.begin() + static_cast<std::ptrdiff_t>(start[v]), kept[v], g.weights.begin() + static_cast<std::ptrdiff_t>(g.offsets[v]));
  }
  return g;
}

}  // namespace ema
