// Seeded mutations of a corpus of inputs, for the parser fuzz tests: the same seed gives the same
// inputs on every machine, so a failure is reproduced by its seed and iteration. Each iteration
// stacks one to four mutations (bit flips, bytes replaced, inserted or deleted, a range repeated,
// a token of the parser's dictionary inserted, a splice with another corpus entry, a truncation).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace ema::test {

class mutator {
 public:
  mutator(std::uint64_t seed, std::vector<std::string> corpus, std::vector<std::string> dictionary)
      : rng_(seed), corpus_(std::move(corpus)), dictionary_(std::move(dictionary)) {
    if (corpus_.empty()) corpus_.emplace_back();
  }

  /// The next input: a corpus entry (each once, first), then mutations of random entries.
  std::string next() {
    if (served_ < corpus_.size()) return corpus_[served_++];
    std::string s = corpus_[below(corpus_.size())];
    const auto rounds = 1 + below(4);
    for (std::size_t r = 0; r < rounds; ++r) mutate(s);
    if (s.size() > max_size) s.resize(max_size);
    return s;
  }

  std::uint64_t below(std::uint64_t n) { return n ? std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_) : 0; }
  std::mt19937_64& rng() { return rng_; }

 private:
  static constexpr std::size_t max_size = 1 << 16;

  void mutate(std::string& s) {
    static const char interesting[] = {'\0', '\n', '\r', ',', ' ', '-', '+', '.', 'e', '9', '0', '\x7f', '\x80', '\xc3', '\xff', '%', '#'};
    const std::size_t at = below(s.size() + 1);
    switch (below(9)) {
      case 0:
        if (!s.empty()) s[below(s.size())] ^= static_cast<char>(1u << below(8));
        break;
      case 1:
        if (!s.empty()) s[below(s.size())] = interesting[below(sizeof interesting)];
        break;
      case 2: {
        std::string bytes;
        for (auto k = 1 + below(8); k; --k) bytes += static_cast<char>(below(256));
        s.insert(at, bytes);
        break;
      }
      case 3:
        if (!s.empty()) s.erase(at, 1 + below(std::min<std::size_t>(16, s.size())));
        break;
      case 4: {
        if (s.empty()) break;
        const auto from = below(s.size());
        const auto piece = s.substr(from, 1 + below(std::min<std::size_t>(32, s.size() - from)));
        std::string repeated;
        for (auto k = 1 + below(16); k; --k) repeated += piece;
        s.insert(below(s.size() + 1), repeated);
        break;
      }
      case 5:
      case 6:
        if (!dictionary_.empty()) s.insert(at, dictionary_[below(dictionary_.size())]);
        break;
      case 7: {
        const auto& other = corpus_[below(corpus_.size())];
        s = s.substr(0, at) + other.substr(below(other.size() + 1));
        break;
      }
      default:
        s.resize(at);
        break;
    }
  }

  std::mt19937_64 rng_;
  std::vector<std::string> corpus_;
  std::vector<std::string> dictionary_;
  std::size_t served_ = 0;
};

/// How long each fuzz target runs: EMA_FUZZ_SECONDS, default 2 (CI runs the default).
inline double fuzz_seconds() {
  const char* s = std::getenv("EMA_FUZZ_SECONDS");
  const double v = s ? std::atof(s) : 2.0;
  return v > 0 ? v : 2.0;
}

/// Runs `one(input, iteration)` on the corpus, then on mutations, for fuzz_seconds() (at least
/// the whole corpus, at most `most` inputs).
template <class Mutator, class One>
std::size_t fuzz_for(Mutator& m, std::size_t corpus_size, std::size_t most, One&& one) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(fuzz_seconds());
  std::size_t i = 0;
  for (; i < most && (i < corpus_size || std::chrono::steady_clock::now() < end); ++i) one(m.next(), i);
  return i;
}

}  // namespace ema::test
