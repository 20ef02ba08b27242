#include "inputs/series.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <numbers>

#include "core/errors.hpp"
#include "inputs/random.hpp"
#include "inputs/text_file.hpp"

namespace ema {
namespace {

std::vector<double> rossler(std::size_t n, std::uint64_t seed) {
  constexpr double a = 0.2, b = 0.2, c = 5.7, h = 0.05;
  using state = std::array<double, 3>;
  auto f = [](const state& s) { return state{-s[1] - s[2], s[0] + a * s[1], b + s[2] * (s[0] - c)}; };
  auto axpy = [](const state& s, double k, const state& d) { return state{s[0] + k * d[0], s[1] + k * d[1], s[2] + k * d[2]}; };
  const double shift = static_cast<double>(random_at(seed, 0) >> 11) * 0x1.0p-53 * 1e-3;
  state s{1.0 + shift, 1.0, 1.0};
  auto step = [&] {
    const state k1 = f(s), k2 = f(axpy(s, h / 2, k1)), k3 = f(axpy(s, h / 2, k2)), k4 = f(axpy(s, h, k3));
    for (int i = 0; i < 3; ++i) s[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  };
  for (int i = 0; i < 1000; ++i) step();
  std::vector<double> x(n);
  for (auto& v : x) {
    v = s[0];
    step();
  }
  return x;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  for (char ch : line) {
    if (ch == ',')
      out.emplace_back();
    else if (ch != '\r')
      out.back() += ch;
  }
  for (auto& f : out) {
    const auto a = f.find_first_not_of(" \t"), z = f.find_last_not_of(" \t");
    f = a == std::string::npos ? std::string() : f.substr(a, z - a + 1);
  }
  return out;
}

bool parse_number(const std::string& f, double& v) {
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  return ec == std::errc() && p == f.data() + f.size() && std::isfinite(v);
}

}  // namespace

template <class T>
T logistic_step(T v) {
  return T(4) * v * (T(1) - v);
}

template <class T>
std::vector<T> logistic_orbit(std::size_t n, T x0) {
  std::vector<T> x(n);
  T v = x0;
  for (auto& e : x) {
    e = v;
    v = logistic_step(v);
  }
  return x;
}
template std::vector<float> logistic_orbit<float>(std::size_t, float);
template std::vector<double> logistic_orbit<double>(std::size_t, double);

std::optional<std::uint64_t> logistic_collapse_step() {
  static const std::optional<std::uint64_t> at = []() -> std::optional<std::uint64_t> {
    double v = 0.4;  // generate_series's "logistic"
    constexpr std::uint64_t cap = std::uint64_t{1} << 28;
    for (std::uint64_t i = 0; i < cap; ++i, v = logistic_step(v))
      if (v == 0) return i;
    return std::nullopt;
  }();
  return at;
}

std::vector<double> logistic_exact(std::size_t n, std::uint64_t seed) {
  // Bit j of theta_0 (j = 0 first, after the binary point) is bit 63 - j % 64 of word j / 64.
  constexpr std::uint64_t bits_stream = 0x6c6f6769737469;  // "logisti"
  std::vector<double> x(n);
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (std::int64_t ii = 0; ii < static_cast<std::int64_t>(n); ++ii) {
    const auto i = static_cast<std::uint64_t>(ii);
    const std::uint64_t word = i / 64, shift = i % 64;
    const std::uint64_t hi = random_at(seed ^ bits_stream, word);
    const std::uint64_t window = shift ? (hi << shift) | (random_at(seed ^ bits_stream, word + 1) >> (64 - shift)) : hi;
    const double theta = static_cast<double>(window >> 11) * 0x1.0p-53;  // theta_i = frac(2^i theta_0), 53 bits
    const double s = std::sin(std::numbers::pi * theta);
    x[i] = s * s;
  }
  return x;
}

std::vector<double> generate_series(const std::string& system, std::size_t n, std::uint64_t seed) {
  if (system == "logistic") return logistic_orbit<double>(n, 0.4);  // (logistic_collapse_step starts there too)
  if (system == "logistic-exact") return logistic_exact(n, seed);
  if (system == "noise") {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(random_at(seed, i) >> 11) * 0x1.0p-53;
    return x;
  }
  if (system == "sine") {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = std::sin(2 * std::numbers::pi * static_cast<double>(i % 100) / 100.0);
    return x;
  }
  if (system == "rossler") return rossler(n, seed);
  throw usage_error(fmt::format("unknown system '{}'; valid systems: logistic, logistic-exact, noise, sine, rossler", system));
}

std::vector<double> read_series(const std::string& path, const std::string& column, std::size_t minimum) {
  text_file in(path);
  return read_series(in, column, minimum);
}

std::vector<double> read_series(text_file& in, const std::string& column, std::size_t minimum) {
  std::vector<double> x;
  std::string line;
  std::size_t index = 0;  // 0-based column, once known
  bool first_data = true;
  const bool numbered = !column.empty() && std::all_of(column.begin(), column.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (numbered) {
    const auto [end, ec] = std::from_chars(column.data(), column.data() + column.size(), index);
    if (ec != std::errc() || index == 0 || index > 100000)
      throw usage_error(fmt::format("{}: column {} does not exist (columns count from 1; at most 100000)", in.name(), column));
    --index;
  }
  while (in.next(line)) {
    const auto start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    const auto fields = split_csv(line);
    if (first_data) {
      first_data = false;
      double probe = 0;
      const bool header = std::none_of(fields.begin(), fields.end(), [&](const std::string& f) { return parse_number(f, probe); });
      if (!column.empty() && !numbered) {
        if (!header) in.fail(fmt::format("column '{}' is named, but the file has no header line", column));
        auto it = std::find(fields.begin(), fields.end(), column);
        if (it == fields.end()) in.fail(fmt::format("no column named '{}' in the header", column));
        index = static_cast<std::size_t>(it - fields.begin());
      }
      if (header) continue;
    }
    if (index >= fields.size()) in.fail(fmt::format("column {} is missing ({} fields on this line)", index + 1, fields.size()));
    double v = 0;
    if (!parse_number(fields[index], v)) in.fail(fmt::format("'{}' is not a finite number", fields[index]));
    x.push_back(v);
  }
  if (x.size() < minimum) throw usage_error(fmt::format("{}: {} values, too short (at least {} are needed)", in.name(), x.size(), minimum));
  return x;
}

std::optional<std::string> degenerate_orbit(std::span<const double> x) {
  const std::size_t n = x.size();
  if (n < 2) return std::nullopt;
  // A fixed point: the run of equal values at the end.
  std::size_t run = 1;
  while (run < n && x[n - 1 - run] == x[n - 1]) ++run;
  if (run >= 16) return fmt::format("the orbit collapsed onto the fixed point {} at step {} of {} (finite precision)", x[n - 1], n - run, n);
  // A short cycle: the tail repeats exactly with period p.
  for (std::size_t p = 2; p <= 65536 && 8 * p <= n; ++p) {
    const std::size_t span = std::min(n - p, std::max<std::size_t>(8 * p, 1000));
    bool cycle = true;
    for (std::size_t k = n - span; k < n && cycle; ++k) cycle = x[k] == x[k - p];
    if (cycle) {
      std::size_t from = n - span;
      while (from > p && x[from - 1] == x[from - 1 - p]) --from;
      // x[k] == x[k - p] for every k >= from: the cycle's first pass begins at from - p.
      return fmt::format("the orbit fell into a cycle of period {} at step {} of {} (finite precision)", p, from - p, n);
    }
  }
  return std::nullopt;
}

}  // namespace ema
