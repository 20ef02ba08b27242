// An example program for `ema exec`: reads whitespace-separated integers from the file named on
// its command line, sorts them by insertion sort (Θ(n²) comparisons on random input), checks the
// result and reports its two phases on standard output as `ema-phase NAME SECONDS` lines.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: isort INPUT\n");
    return 2;
  }
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "isort: cannot read %s\n", argv[1]);
    return 2;
  }
  std::vector<long> v;
  for (long x; in >> x;) v.push_back(x);
  auto t1 = clock::now();
  for (std::size_t i = 1; i < v.size(); ++i) {
    const long key = v[i];
    std::size_t j = i;
    for (; j > 0 && v[j - 1] > key; --j) v[j] = v[j - 1];
    v[j] = key;
  }
  auto t2 = clock::now();
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i - 1] > v[i]) {
      std::fprintf(stderr, "isort: not sorted at %zu\n", i);
      return 1;
    }
  std::printf("ema-phase read %.9f\n", std::chrono::duration<double>(t1 - t0).count());
  std::printf("ema-phase sort %.9f\n", std::chrono::duration<double>(t2 - t1).count());
  return 0;
}
