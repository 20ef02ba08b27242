// bfs / omp — ours: direction-optimising BFS (Beamer, Asanović and Patterson, "Direction-optimizing
// breadth-first search", SC 2012; the GAP suite's reference `bfs`), on the OpenMP threads.
// - top-down steps: the frontier as a queue; each thread takes frontier vertices and claims each
//   unvisited neighbour with a compare-and-swap on its parent, collecting the winners in a buffer
//   of its own, appended to the next queue at the step's end;
// - bottom-up steps: the frontier as a bitmap; each unvisited vertex scans its neighbours for one in
//   the frontier and stops at the first (no atomics on the vertex: only its own thread writes it);
// - the switch, GAP's heuristic (alpha = 15, beta = 18): go bottom-up when the edges out of the
//   frontier exceed 1/alpha of the edges not yet checked; come back top-down when the frontier
//   stops growing and holds fewer than n/beta vertices.
// Bottom-up needs each vertex's in-edges; an undirected graph's rows are both, a directed one's are
// not (ema keeps no transpose), so a directed graph is searched top-down only.
// The frontier changes form on all the threads (atomic ORs into the bitmap; the bitmap's words
// shared out, counted, then written at their prefix sums), as GAP's QueueToBitmap and
// BitmapToQueue: on one thread they were 17% of a urand-24 search (conversions_us).
// Notes: `levels` and `bottom_up_levels`, summed over the roots; where the time goes, summed over
// the roots too: `top_down_us`, `bottom_up_us` and `conversions_us` (the frontier turned from a
// queue into a bitmap and back), and `frontier_at_switch`, the vertices in the
// frontier at each switch to bottom-up (issue 33: what separates `omp` from GAP on urand).
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <memory>
#include <type_traits>
#include <utility>
#include <omp.h>

#include "core/registry.hpp"
#include "problems/bfs/bfs.hpp"

namespace ema::bfs {
namespace {

constexpr std::uint64_t alpha = 15, beta = 18;

struct bitmap {
  std::vector<std::uint64_t> words;
  explicit bitmap(std::uint64_t n) : words((n + 63) / 64, 0) {}
  bool test(std::uint32_t v) const { return (words[v >> 6] >> (v & 63)) & 1; }
  /// Only where no other thread writes v's word (a bottom-up step's chunks are whole words).
  void set(std::uint32_t v) { words[v >> 6] |= std::uint64_t{1} << (v & 63); }
  void clear() {
    const auto count = static_cast<std::int64_t>(words.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t w = 0; w < count; ++w) words[static_cast<std::size_t>(w)] = 0;
  }
};

/// A bottom-up step's chunk of vertices: whole words of the bitmap, so each word of the next
/// frontier is written by one thread alone, with a plain store, not an atomic OR for every vertex
/// woken (as GAP's bottom-up step does).
constexpr std::int64_t bottom_up_chunk = 1024;
static_assert(bottom_up_chunk % 64 == 0);

/// The launch setting: how far ahead a top-down step prefetches the parent entries it will claim.
struct omp_launch {
  int prefetch = 16;
  static constexpr launch_field fields[] = {
      {"prefetch",
       "edges ahead whose parent entry a top-down step prefetches while claiming, 0 to 64; 0: none (ema: 16: 1.03x on kron-24, 1.16x on urand-24 on "
       "the H200 machine's host)",
       0, 64},
  };
  std::array<int*, 1> members() { return {&prefetch}; }
};

/// A queue of vertices whose resize leaves the new entries unwritten (default-initialised), so
/// that growing it for the threads to fill costs no serial pass over it.
template <class T>
struct default_init : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = default_init<U>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using vertex_queue = std::vector<std::uint32_t, default_init<std::uint32_t>>;

/// The bitmap's vertices into the queue, in order, by all the threads: each counts the bits of its
/// share of the words, the counts' prefix sums say where each writes, then each writes its share.
void bitmap_to_queue(const bitmap& front, vertex_queue& queue, std::vector<std::size_t>& counts) {
  const auto words = static_cast<std::int64_t>(front.words.size());
#pragma omp parallel
  {
    const auto threads = static_cast<std::int64_t>(omp_get_num_threads()), me = static_cast<std::int64_t>(omp_get_thread_num());
    const std::int64_t first = words * me / threads, last = words * (me + 1) / threads;
    std::size_t mine = 0;
    for (std::int64_t w = first; w < last; ++w) mine += static_cast<std::size_t>(std::popcount(front.words[static_cast<std::size_t>(w)]));
    counts[static_cast<std::size_t>(me)] = mine;
#pragma omp barrier
#pragma omp single
    {
      std::size_t total = 0;
      for (std::int64_t t = 0; t < threads; ++t) total += std::exchange(counts[static_cast<std::size_t>(t)], total);
      queue.resize(total);
    }
    std::size_t at = counts[static_cast<std::size_t>(me)];
    for (std::int64_t w = first; w < last; ++w)
      for (std::uint64_t bits = front.words[static_cast<std::size_t>(w)]; bits; bits &= bits - 1)
        queue[at++] = static_cast<std::uint32_t>(64 * static_cast<std::uint64_t>(w) + static_cast<std::uint64_t>(std::countr_zero(bits)));
  }
}

output run(const input& in, run_context& ctx) {
  const csr_graph& g = in.g;
  const std::uint64_t n = g.n;
  const auto ahead = static_cast<std::uint64_t>(ctx.launch(omp_launch{}).prefetch);
  ctx.processors(omp_get_max_threads());
  std::uint64_t levels = 0, bottom_up_levels = 0, frontier_at_switch = 0;
  using clock = std::chrono::steady_clock;
  clock::duration top_down{}, bottom_up{}, conversions{};
  vertex_queue frontier, next;
  frontier.reserve(n);
  next.reserve(n);
  bitmap front(n), upcoming(n);
  std::vector<std::size_t> counts(static_cast<std::size_t>(omp_get_max_threads()));
  auto o = search_each_root(in, ctx, true, [&](std::uint32_t root, std::uint32_t* depth, std::uint32_t* parent) {
    depth[root] = 0;
    parent[root] = root;
    frontier.assign(1, root);
    std::uint64_t unchecked = g.neighbours.size(), scout = g.degree(root);
    std::uint32_t level = 0;
    while (!frontier.empty()) {
      if (!g.directed && scout > unchecked / alpha) {
        // Bottom-up until the frontier is small and shrinking again.
        auto t0 = clock::now();
        frontier_at_switch += frontier.size();
        front.clear();
        const auto queued = static_cast<std::int64_t>(frontier.size());
#pragma omp parallel for schedule(static)
        for (std::int64_t k = 0; k < queued; ++k) {
          const std::uint32_t u = frontier[static_cast<std::size_t>(k)];
          std::atomic_ref<std::uint64_t>(front.words[u >> 6]).fetch_or(std::uint64_t{1} << (u & 63), std::memory_order_relaxed);
        }
        auto t1 = clock::now();
        conversions += t1 - t0;
        std::uint64_t awake = frontier.size(), before = 0;
        do {
          before = awake;
          awake = 0;
          upcoming.clear();
          const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for reduction(+ : awake) schedule(dynamic, bottom_up_chunk)
          for (std::int64_t vi = 0; vi < count; ++vi) {
            const auto v = static_cast<std::uint32_t>(vi);
            if (depth[v] != unreached) continue;
            for (std::uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i)
              if (const std::uint32_t u = g.neighbours[i]; front.test(u)) {
                parent[v] = u;
                depth[v] = level + 1;
                upcoming.set(v);
                ++awake;
                break;
              }
          }
          std::swap(front.words, upcoming.words);
          ++level;
          ++levels;
          ++bottom_up_levels;
        } while (awake > 0 && (awake >= before || awake > n / beta));
        t0 = clock::now();
        bottom_up += t0 - t1;
        bitmap_to_queue(front, frontier, counts);
        conversions += clock::now() - t0;
        scout = 1;  // measured again by the next top-down step
        continue;
      }
      // Top-down.
      const auto t0 = clock::now();
      unchecked -= std::min(unchecked, scout);
      next.clear();
      std::uint64_t found_edges = 0;
      const auto size = static_cast<std::int64_t>(frontier.size());
#pragma omp parallel reduction(+ : found_edges)
      {
        std::vector<std::uint32_t> mine;
#pragma omp for schedule(dynamic, 64) nowait
        for (std::int64_t k = 0; k < size; ++k) {
          const std::uint32_t u = frontier[static_cast<std::size_t>(k)];
          const std::uint64_t end = g.offsets[u + 1];
          for (std::uint64_t i = g.offsets[u]; i < end; ++i) {
            if (ahead && i + ahead < end) __builtin_prefetch(parent + g.neighbours[i + ahead], 1, 3);
            const std::uint32_t v = g.neighbours[i];
            std::atomic_ref<std::uint32_t> p(parent[v]);
            std::uint32_t expected = unreached;
            if (p.load(std::memory_order_relaxed) == unreached && p.compare_exchange_strong(expected, u, std::memory_order_relaxed))
              mine.push_back(v);
          }
        }
        // The depths and degrees of the vertices this thread claimed, after its claims: between
        // them, a store or a load missing the cache (both arrays are indexed by the vertex
        // claimed, anywhere in them) would hold up the next compare-and-swap, a locked
        // instruction; here the misses overlap.
        for (std::size_t k = 0; k < mine.size(); ++k) {
          if (ahead && k + ahead < mine.size()) __builtin_prefetch(g.offsets.data() + mine[k + ahead], 0, 3);
          const std::uint32_t v = mine[k];
          depth[v] = level + 1;
          found_edges += g.degree(v);
        }
#pragma omp critical(bfs_omp_next)
        next.insert(next.end(), mine.begin(), mine.end());
      }
      scout = found_edges;
      std::swap(frontier, next);
      ++level;
      ++levels;
      top_down += clock::now() - t0;
    }
  });
  ctx.note("levels", static_cast<std::int64_t>(levels));
  ctx.note("bottom_up_levels", static_cast<std::int64_t>(bottom_up_levels));
  auto us = [](clock::duration d) { return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count()); };
  ctx.note("top_down_us", us(top_down));
  ctx.note("bottom_up_us", us(bottom_up));
  ctx.note("conversions_us", us(conversions));
  ctx.note("frontier_at_switch", static_cast<std::int64_t>(frontier_at_switch));
  return o;
}

}  // namespace
}  // namespace ema::bfs

EMA_VARIANT(bfs_omp, ema::bfs::kit::variant<&ema::bfs::run>({
                         .name = "omp",
                         .backend = ema::backend::omp,
                         .role = ema::variant_role::ours,
                         .description = "ours: direction-optimising (top-down queue / bottom-up bitmap, GAP's switch), depths and parents",
                         .provenance = "Beamer, Asanovic, Patterson, SC 2012 (the GAP suite's bfs)",
                         .launch = ema::bfs::omp_launch::fields,
                     }));
