// sort / merge-omp — Algorithm 6 of Nogueira, 004_96c7929830a11cf7.txt (Mergesort OpenMP), as written:
// top-down recursion on [inicio, fim] (inclusive bounds), each half an `omp task`, then
// `omp taskwait`, then the conquest step that merges the two sorted halves through `tmp`. Tasks go
// all the way down to single keys, as the text says ("até que o vetor seja dividido em
// subconjuntos de um elemento"): no cutoff. Θ(n log n) work, n - 1 tasks.
// How the listing was read: line 8 calls the conquest step `selection_sort(vetor, inicio, fim,
// separar, tmp)`, and the text says a selection sort does it; its arguments (both halves, the
// split point and a buffer) are a merge's, and a selection sort over [inicio, fim] would make the
// recursion pointless (Θ(n²) at the top level alone), so it is read as the merge of the two halves:
// the smaller head first, the left one on ties (stable), into tmp, then back.

#include "core/registry.hpp"
#include "problems/sort/sort.hpp"
#include "problems/sort/task_region.hpp"

namespace ema::sort {
namespace {

template <class K>
void merge_halves(K* v, std::size_t inicio, std::size_t fim, std::size_t separar, K* tmp) {
  std::size_t i = inicio, j = separar + 1, o = inicio;
  while (i <= separar && j <= fim) tmp[o++] = v[j] < v[i] ? v[j++] : v[i++];
  while (i <= separar) tmp[o++] = v[i++];
  while (j <= fim) tmp[o++] = v[j++];
  for (std::size_t k = inicio; k <= fim; ++k) v[k] = tmp[k];
}

template <class K>
void mergesort(K* v, std::size_t inicio, std::size_t fim, K* tmp) {
  if (inicio < fim) {
    const std::size_t separar = inicio + (fim - inicio) / 2;  // (inicio + fim) / 2 without overflow
#pragma omp task
    mergesort(v, inicio, separar, tmp);
#pragma omp task
    mergesort(v, separar + 1, fim, tmp);
#pragma omp taskwait
    merge_halves(v, inicio, fim, separar, tmp);
  }
}

template <class K>
struct algorithm_6 {
  static output run(const input& in, run_context& ctx) {
    auto keys = copy_of<K>(in);
    host_array<K> tmp(in.n, host_memory_kind::pageable);
    in_task_region(ctx, in.n > 1, [&] { mergesort(keys.data(), 0, in.n - 1, tmp.data()); });
    ctx.note("tasks", static_cast<std::int64_t>(in.n > 1 ? 2 * (in.n - 1) : 0));
    return owned(std::move(keys));
  }
};

output run(const input& in, run_context& ctx) { return run_typed<algorithm_6>(in, ctx); }

}  // namespace
}  // namespace ema::sort

EMA_VARIANT(sort_merge_omp, ema::sort::kit::variant<&ema::sort::run>({
                                .name = "merge-omp",
                                .algorithm = "merge",
                                .backend = ema::backend::omp,
                                .role = ema::variant_role::source,
                                .description = "Algorithm 6: top-down mergesort, each half an OpenMP task down to single keys, then the merge",
                                .provenance = "Algorithm 6 of 004_96c7929830a11cf7.txt",
                            }));
