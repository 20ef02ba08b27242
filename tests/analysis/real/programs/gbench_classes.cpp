// Ordinary programs with known costs, measured with Google Benchmark (Debian's libbenchmark-dev) to
// judge `ema fit --from gbench` on data no part of ema made (issue 29). Each benchmark's class is the
// textbook one for what it times; tests/analysis/real/classes.json records it beside the results.
// Build and run (tests/analysis/real/README.md):
//   g++ -O2 -std=c++20 gbench_classes.cpp -lbenchmark -lpthread -o gbench_classes
//   ./gbench_classes --benchmark_repetitions=3 --benchmark_format=json > gbench-devbox.json
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <unordered_map>
#include <vector>

namespace {

std::vector<std::uint32_t> random_keys(std::size_t n, std::uint32_t seed = 7) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// Θ(1): one lookup in a small table, whatever n names.
void BM_ConstantLookup(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::uint32_t> table(64, 3);
  std::size_t i = n;
  for (auto _ : state) {
    benchmark::DoNotOptimize(table[i & 63]);
    ++i;
  }
}
BENCHMARK(BM_ConstantLookup)->RangeMultiplier(4)->Range(1 << 4, 1 << 24);

// Θ(log n): a binary search in n sorted keys (an L1-resident table at the small end).
void BM_LowerBound(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto v = random_keys(n);
  std::sort(v.begin(), v.end());
  std::mt19937 rng(11);
  for (auto _ : state) benchmark::DoNotOptimize(std::lower_bound(v.begin(), v.end(), static_cast<std::uint32_t>(rng())));
}
BENCHMARK(BM_LowerBound)->RangeMultiplier(4)->Range(1 << 4, 1 << 22);

// Θ(√n): trial division of the largest prime below n.
void BM_TrialDivision(benchmark::State& state) {
  auto p = static_cast<std::uint64_t>(state.range(0));
  auto prime = [](std::uint64_t x) {
    if (x < 2) return false;
    for (std::uint64_t d = 2; d * d <= x; ++d)
      if (x % d == 0) return false;
    return true;
  };
  while (!prime(p)) --p;
  for (auto _ : state) {
    std::uint64_t x = p;
    benchmark::DoNotOptimize(x);
    benchmark::DoNotOptimize(prime(x));
  }
}
BENCHMARK(BM_TrialDivision)->RangeMultiplier(8)->Range(1 << 10, std::int64_t{1} << 40);

// Θ(n): a copy of n bytes.
void BM_Memcpy(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<char> src(n, 'x'), dst(n);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Memcpy)->RangeMultiplier(4)->Range(1 << 10, 1 << 28);

// Θ(n): the sum of n integers.
void BM_Accumulate(benchmark::State& state) {
  const auto v = random_keys(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), std::uint64_t{0}));
}
BENCHMARK(BM_Accumulate)->RangeMultiplier(4)->Range(1 << 10, 1 << 26);

// Θ(n) expected: n inserts into a hash map.
void BM_HashInserts(benchmark::State& state) {
  const auto v = random_keys(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::unordered_map<std::uint32_t, std::uint32_t> m;
    m.reserve(v.size());
    for (auto x : v) m[x] = x;
    benchmark::DoNotOptimize(m.size());
  }
}
BENCHMARK(BM_HashInserts)->RangeMultiplier(4)->Range(1 << 8, 1 << 22);

// Θ(n log n): std::sort of n random keys (the copy, Θ(n), inside).
void BM_StdSort(benchmark::State& state) {
  const auto keys = random_keys(static_cast<std::size_t>(state.range(0)));
  std::vector<std::uint32_t> v(keys.size());
  for (auto _ : state) {
    v = keys;
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(BM_StdSort)->RangeMultiplier(4)->Range(1 << 8, 1 << 24);

// Θ(n log n): n inserts into a balanced tree.
void BM_SetInserts(benchmark::State& state) {
  const auto v = random_keys(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::set<std::uint32_t> s(v.begin(), v.end());
    benchmark::DoNotOptimize(s.size());
  }
}
BENCHMARK(BM_SetInserts)->RangeMultiplier(4)->Range(1 << 8, 1 << 20);

// Θ(n²): insertion sort of n random keys.
void BM_InsertionSort(benchmark::State& state) {
  const auto keys = random_keys(static_cast<std::size_t>(state.range(0)));
  std::vector<std::uint32_t> v(keys.size());
  for (auto _ : state) {
    v = keys;
    for (std::size_t i = 1; i < v.size(); ++i)
      for (std::size_t j = i; j > 0 && v[j] < v[j - 1]; --j) std::swap(v[j], v[j - 1]);
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(BM_InsertionSort)->RangeMultiplier(2)->Range(1 << 6, 1 << 15);

// Θ(n³): the naive product of two n x n matrices.
void BM_MatMul(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<double> a(n * n, 1.5), b(n * n, 0.5), c(n * n);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < n; ++k)
        for (std::size_t j = 0; j < n; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
    benchmark::DoNotOptimize(c.data());
  }
}
BENCHMARK(BM_MatMul)->RangeMultiplier(2)->Range(8, 512);

// Θ(φ^n), φ = 1.618: the recursive Fibonacci number.
std::uint64_t fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
void BM_Fibonacci(benchmark::State& state) {
  const auto n = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    unsigned k = n;
    benchmark::DoNotOptimize(k);
    benchmark::DoNotOptimize(fib(k));
  }
}
BENCHMARK(BM_Fibonacci)->DenseRange(10, 32, 2);

}  // namespace

BENCHMARK_MAIN();
