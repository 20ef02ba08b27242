// bfs / omp — ours: direction-optimising BFS (Beamer, Asanović and Patterson, "Direction-optimizing
// breadth-first search", SC 2012; the GAP suite's reference `bfs`), on the OpenMP threads.
// - top-down steps: the frontier as a queue; each thread takes frontier vertices and claims each
//   unvisited neighbour with a compare-and-swap on its parent, collecting the winners in a buffer
//   of its own, appended to the next queue at the step's end;
// - bottom-up steps: the frontier as a bitmap; each vertex whose bit in a visited bitmap is clear
//   (a word at a time, so the visited ones cost nothing; GAP reads every vertex's parent entry, n
//   of them each step) scans its neighbours for one in the frontier and stops at the first (no
//   atomics: a thread owns whole words of both bitmaps). The visited bitmap is made from the depths
//   at each switch to bottom-up, the vertices with no edge set in it, so no step looks at them;
// - the switch, GAP's heuristic (alpha = 15, beta = 18): go bottom-up when the edges out of the
//   frontier exceed 1/alpha of the edges not yet checked; come back top-down when the frontier
//   stops growing and holds fewer than n/beta vertices.
// Bottom-up needs each vertex's in-edges; an undirected graph's rows are both, a directed one's are
// not (ema keeps no transpose), so a directed graph is searched top-down only.
// At a switch to bottom-up, one pass over the depths gives both bitmaps, the visited vertices and
// the frontier (the vertices at the level's depth: no atomic OR for each) — or, while the vertices
// claimed since the visited bitmap was last exact are fewer than n/64 (a grid's small frontiers),
// an atomic OR for each of them and of the frontier's; back to top-down, the
// frontier bitmap's words are shared out, counted, then written at their prefix sums (GAP's
// BitmapToQueue). On one thread the conversions were 17% of a urand-24 search (conversions_us).
// A top-down step claims by a plain store (launch.claim = 1, the default) or GAP's
// compare-and-swap (0); `claimed_twice` counts vertices two threads claimed in one level (a lower
// bound: two threads writing the depth at once both miss the other).
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

/// A top-down step's chunk of frontier vertices (a thread's unit of work, GAP's dynamic schedule).
constexpr std::int64_t top_down_chunk = 64;

/// The launch settings: how far ahead a top-down step prefetches the parent entries it will claim,
/// and how it claims them.
struct omp_launch {
  int prefetch = 32;
  int claim = 1;
  static constexpr launch_field fields[] = {
      {"prefetch",
       "edges ahead whose parent entry a top-down step prefetches while claiming (across the rows of a chunk of 64 frontier vertices), 0 to 64; 0: "
       "none",
       0, 64},
      {"claim",
       "how a top-down step claims a vertex: 0: a compare-and-swap on its parent entry (GAP's); 1: a plain store where the entry read unclaimed "
       "(two threads may both claim it; both are in the same level, so either parent is right, and it is searched from twice)",
       0, 1},
  };
  std::array<int*, 2> members() { return {&prefetch, &claim}; }
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

/// The bits no search needs to look at: those past n and, in an undirected graph, the vertices
/// with no edge (none reaches them).
bitmap nothing_to_visit(const csr_graph& g) {
  bitmap never(g.n);
  const auto words = static_cast<std::int64_t>(never.words.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t w = 0; w < words; ++w) {
    std::uint64_t bits = 0;
    for (std::uint64_t b = 0; b < 64; ++b) {
      const std::uint64_t v = 64 * static_cast<std::uint64_t>(w) + b;
      if (v >= g.n || (!g.directed && g.degree(v) == 0)) bits |= std::uint64_t{1} << b;
    }
    never.words[static_cast<std::size_t>(w)] = bits;
  }
  return never;
}

output run(const input& in, run_context& ctx) {
  const csr_graph& g = in.g;
  const std::uint64_t n = g.n;
  const omp_launch launch = ctx.launch(omp_launch{});
  const auto ahead = static_cast<std::uint64_t>(launch.prefetch);
  const bool store_claims = launch.claim == 1;
  const int threads = omp_get_max_threads();
  ctx.processors(threads);
  std::uint64_t levels = 0, bottom_up_levels = 0, frontier_at_switch = 0, claimed_twice = 0;
  using clock = std::chrono::steady_clock;
  clock::duration top_down{}, bottom_up{}, conversions{};
  vertex_queue frontier, next;
  frontier.reserve(n);
  next.reserve(n);
  bitmap front(n), upcoming(n), visited(n);
  // What every search starts with as visited: the bits past n, and (undirected) the vertices with
  // no edge, which no search reaches, so that a bottom-up step never looks at them again. Found
  // once for the graph, as its rows are.
  const bitmap never = nothing_to_visit(g);
  const auto words = static_cast<std::int64_t>(visited.words.size());
  std::vector<std::size_t> counts(static_cast<std::size_t>(threads));
  // How many vertices claimed since the visited bitmap was last exact a switch adds one by one (an
  // atomic OR each, ~25 ns on 16 threads) rather than reading all n depths (~0.2 ns a vertex).
  const std::uint64_t few = std::max<std::uint64_t>(n / 64, 64);
  vertex_queue since;
  auto o = search_each_root(in, ctx, true, [&](std::uint32_t root, std::uint32_t* depth, std::uint32_t* parent) {
    depth[root] = 0;
    parent[root] = root;
    frontier.assign(1, root);
    // The visited bitmap is exact after a bottom-up phase; the vertices claimed top-down since then
    // (since the root, before the first) are kept while they are few, so that a switch adds just
    // them (a graph of long paths, a grid, switches often with small frontiers; a pass over all n
    // depths at each switch cost it more than its searches).
    bool visited_exact = false, since_complete = true;
    since.assign(1, root);
    std::uint64_t unchecked = g.neighbours.size(), scout = g.degree(root);
    std::uint32_t level = 0;
    while (!frontier.empty()) {
      if (!g.directed && scout > unchecked / alpha) {
        // Bottom-up until the frontier is small and shrinking again.
        auto t0 = clock::now();
        frontier_at_switch += frontier.size();
        std::uint64_t awake = 0;  // the frontier's vertices, each once (a store claim may queue one twice)
        if (since_complete && since.size() < few) {
          if (!visited_exact)
#pragma omp parallel for schedule(static)
            for (std::int64_t w = 0; w < words; ++w) visited.words[static_cast<std::size_t>(w)] = never.words[static_cast<std::size_t>(w)];
          front.clear();
          const auto added = static_cast<std::int64_t>(since.size()), queued = static_cast<std::int64_t>(frontier.size());
#pragma omp parallel
          {
#pragma omp for schedule(static)
            for (std::int64_t k = 0; k < added; ++k) {
              const std::uint32_t v = since[static_cast<std::size_t>(k)];
              std::atomic_ref<std::uint64_t>(visited.words[v >> 6]).fetch_or(std::uint64_t{1} << (v & 63), std::memory_order_relaxed);
            }
#pragma omp for schedule(static) reduction(+ : awake)
            for (std::int64_t k = 0; k < queued; ++k) {
              const std::uint32_t u = frontier[static_cast<std::size_t>(k)];
              const std::uint64_t bit = std::uint64_t{1} << (u & 63);
              awake += (std::atomic_ref<std::uint64_t>(front.words[u >> 6]).fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
            }
          }
        } else {
          // The vertices visited so far and the frontier (those at this level's depth), a word
          // of the depths at a time: one pass over them, and no atomic OR for each vertex.
#pragma omp parallel for schedule(static) reduction(+ : awake)
          for (std::int64_t w = 0; w < words; ++w) {
            const auto wi = static_cast<std::size_t>(w);
            std::uint64_t seen = never.words[wi], at = 0;
            const std::uint64_t first = 64 * static_cast<std::uint64_t>(w), last = std::min<std::uint64_t>(first + 64, n);
            for (std::uint64_t v = first; v < last; ++v) {
              seen |= std::uint64_t{depth[v] != unreached} << (v - first);
              at |= std::uint64_t{depth[v] == level} << (v - first);
            }
            visited.words[wi] = seen;
            front.words[wi] = at;
            awake += static_cast<std::uint64_t>(std::popcount(at));
          }
        }
        visited_exact = true;
        since_complete = true;
        since.clear();
        auto t1 = clock::now();
        conversions += t1 - t0;
        std::uint64_t before = 0;
        do {
          before = awake;
          awake = 0;
          // A chunk is whole words: each word of `visited` and of the next frontier is this
          // thread's alone, written once with a plain store. The vertices not yet visited are
          // the word's zero bits, so the visited ones cost nothing.
#pragma omp parallel for reduction(+ : awake) schedule(dynamic, bottom_up_chunk / 64)
          for (std::int64_t w = 0; w < words; ++w) {
            const auto wi = static_cast<std::size_t>(w);
            std::uint64_t woke = 0;
            for (std::uint64_t todo = ~visited.words[wi]; todo; todo &= todo - 1) {
              const int b = std::countr_zero(todo);
              const auto v = static_cast<std::uint32_t>(64 * static_cast<std::uint64_t>(w) + static_cast<std::uint64_t>(b));
              for (std::uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i)
                if (const std::uint32_t u = g.neighbours[i]; front.test(u)) {
                  parent[v] = u;
                  depth[v] = level + 1;
                  woke |= std::uint64_t{1} << b;
                  break;
                }
            }
            upcoming.words[wi] = woke;
            visited.words[wi] |= woke;
            awake += static_cast<std::uint64_t>(std::popcount(woke));
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
      std::uint64_t found_edges = 0, twice = 0;
      const auto size = static_cast<std::int64_t>(frontier.size());
      std::atomic<std::int64_t> taken{0};
#pragma omp parallel reduction(+ : found_edges, twice)
      {
        std::vector<std::uint32_t> mine;
        // The frontier in chunks of `top_down_chunk` vertices, taken by the threads as they come
        // free. A chunk's rows are found first (their offsets' misses overlap), then its edges
        // walked as one stream, the parent entry `ahead` edges on prefetched across the rows'
        // ends: within a row alone, the first `ahead` edges of every row (half of a urand row)
        // were never prefetched.
        std::array<std::uint64_t, top_down_chunk> from{}, to{};
        for (;;) {
          const std::int64_t first = taken.fetch_add(top_down_chunk, std::memory_order_relaxed);
          if (first >= size) break;
          const auto count = static_cast<std::size_t>(std::min<std::int64_t>(top_down_chunk, size - first));
          const std::uint32_t* chunk = frontier.data() + first;
          for (std::size_t k = 0; k < count; ++k) {
            from[k] = g.offsets[chunk[k]];
            to[k] = g.offsets[chunk[k] + 1];
          }
          std::size_t pk = 0;  // the prefetch cursor: row pk, edge pi
          std::uint64_t pi = from[0];
          auto prefetch_next = [&] {
            while (pk < count && pi >= to[pk])
              if (++pk < count) pi = from[pk];
            if (pk < count) __builtin_prefetch(parent + g.neighbours[pi++], 1, 3);
          };
          if (ahead)
            for (std::uint64_t e = 0; e < ahead; ++e) prefetch_next();
          for (std::size_t k = 0; k < count; ++k) {
            const std::uint32_t u = chunk[k];
            for (std::uint64_t i = from[k]; i < to[k]; ++i) {
              if (ahead) prefetch_next();
              const std::uint32_t v = g.neighbours[i];
              std::atomic_ref<std::uint32_t> p(parent[v]);
              if (p.load(std::memory_order_relaxed) != unreached) continue;
              if (store_claims) {
                // No locked instruction: the stores of many claims are in flight at once, where
                // each compare-and-swap waits for its line. Two threads that read the entry
                // unclaimed before either store lands both claim it, from two vertices of this level.
                p.store(u, std::memory_order_relaxed);
                mine.push_back(v);
              } else if (std::uint32_t expected = unreached; p.compare_exchange_strong(expected, u, std::memory_order_relaxed)) {
                mine.push_back(v);
              }
            }
          }
        }
        // The depths and degrees of the vertices this thread claimed, after its claims: between
        // them, a store or a load missing the cache (both arrays are indexed by the vertex
        // claimed, anywhere in them) would hold up the next compare-and-swap, a locked
        // instruction; here the misses overlap.
        for (std::size_t k = 0; k < mine.size(); ++k) {
          if (ahead && k + ahead < mine.size()) {
            __builtin_prefetch(g.offsets.data() + mine[k + ahead], 0, 3);
            __builtin_prefetch(depth + mine[k + ahead], 1, 3);
          }
          const std::uint32_t v = mine[k];
          std::atomic_ref<std::uint32_t> d(depth[v]);
          if (d.load(std::memory_order_relaxed) == level + 1) {
            ++twice;  // claimed twice: searched from once more; its edges counted once for the switch
          } else {
            d.store(level + 1, std::memory_order_relaxed);
            found_edges += g.degree(v);
          }
        }
#pragma omp critical(bfs_omp_next)
        next.insert(next.end(), mine.begin(), mine.end());
      }
      scout = found_edges;
      claimed_twice += twice;
      if (since_complete && since.size() + next.size() < few)
        since.insert(since.end(), next.begin(), next.end());
      else
        since_complete = false;
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
  ctx.note("claimed_twice", static_cast<std::int64_t>(claimed_twice));
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
