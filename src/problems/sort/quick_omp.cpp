// sort / quick-omp — Algorithm 4 of Nogueira, 004_96c7929830a11cf7.txt (Quicksort OpenMP), as written:
// top-down recursion on [inicio, fim] (inclusive bounds), the pivot the value at the middle
// position, a Hoare partition (lptr up past keys less than the pivot, rptr down past keys greater,
// swap while lptr <= rptr), then each side that holds more than one key an `omp task`, with no
// cutoff and no taskwait (the end of the parallel region waits for them all).
// How the listing was read: lines 4-16 read `lval = *lptr`, `rval = *rptr` once and then "walk the
// array while lval < pivot" — read as advancing lptr while *lptr < pivot (and rptr while
// *rptr > pivot), re-reading the key at each step; after the swap both pointers move on (else keys
// equal to the pivot would swap forever). The text calls the partition an insertion sort; the
// listing's code is a partition.
// Where it degrades: on an organ pipe (ascending then descending) the middle key is the largest,
// so each partition splits off one key: a recursion n/2 deep and Θ(n²) work (n²/4 comparisons).
// Past 2^17 keys such an input is declined as not applicable (it would run for minutes); below,
// the fit shows the quadratic growth. The other distributions stay Θ(n log n).
#include <cstdint>
#include <utility>

#include "core/registry.hpp"
#include "problems/sort/sort.hpp"
#include "problems/sort/task_region.hpp"

namespace ema::sort {
namespace {

constexpr std::uint64_t organ_limit = std::uint64_t{1} << 17;

template <class K>
void quicksort(K* data, std::int64_t inicio, std::int64_t fim) {
  std::int64_t lptr = inicio, rptr = fim;
  const K pivot = data[inicio + (fim - inicio) / 2];
  while (lptr <= rptr) {
    while (data[lptr] < pivot) ++lptr;
    while (data[rptr] > pivot) --rptr;
    if (lptr <= rptr) {
      std::swap(data[lptr], data[rptr]);
      ++lptr;
      --rptr;
    }
  }
  if (inicio < rptr) {
#pragma omp task
    quicksort(data, inicio, rptr);
  }
  if (lptr < fim) {
#pragma omp task
    quicksort(data, lptr, fim);
  }
}

template <class K>
struct algorithm_4 {
  static output run(const input& in, run_context& ctx) {
    auto keys = copy_of<K>(in);
    in_task_region(ctx, in.n > 1, [&] { quicksort(keys.data(), 0, static_cast<std::int64_t>(in.n) - 1); });
    return owned(std::move(keys));
  }
};

output run(const input& in, run_context& ctx) { return run_typed<algorithm_4>(in, ctx); }

const char* quadratic_input(const param_set& p, std::uint64_t n) {
  if (const auto s = settings::of(p); s.input.empty() && s.dist == key_distribution::organ && n > organ_limit)
    return "not applicable: on an organ pipe the middle pivot splits off one key per level (n/2 levels, n²/4 comparisons): declined "
           "past 2^17 keys, where it would run for minutes";
  return nullptr;
}

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_quick_omp, ema::sort::kit::variant<&ema::sort::run>({
                                .name = "quick-omp",
                                .algorithm = "quick",
                                .backend = ema::backend::omp,
                                .role = ema::variant_role::source,
                                .description = "Algorithm 4: quicksort with the middle key as pivot, a Hoare partition, each side an OpenMP task",
                                .provenance = "Algorithm 4 of 004_96c7929830a11cf7.txt",
                                .not_applicable = &ema::sort::quadratic_input,
                            }));
