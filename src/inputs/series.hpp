// Time series inputs (for recurrence quantification, Froguel, 000_d2722dce0c10bad2.txt): series generated
// from a dynamical system or noise, series read from a file, and a check that a generated chaotic
// orbit has not collapsed onto a fixed point or a short cycle, which finite precision eventually
// does to every orbit (the r = 4 logistic map from 0.4 reaches exactly 0 in double after about
// 1.5e7 steps; in float it falls into a short cycle within a few thousand).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ema {

/// n samples of a system: "logistic" (x <- r x (1 - x), r = 4, x0 = 0.4, as the source; in double),
/// "logistic-exact" (logistic_exact below),
/// "noise" (uniform in [0, 1), white), "sine" (sin(2 pi k / period), period 100 samples), or
/// "rossler" (the x component of the Rössler system a = b = 0.2, c = 5.7, fourth-order
/// Runge-Kutta with step 0.05 after 1000 steps of transient, from (1, 1, 1) shifted by the seed).
/// Throws usage_error for an unknown system.
std::vector<double> generate_series(const std::string& system, std::size_t n, std::uint64_t seed);

/// The r = 4 logistic map's exact orbit, of any length, through its conjugacy with the doubling
/// map: x_i = sin^2(pi theta_i), theta_i = frac(2^i theta_0), where theta_0's binary digits are a
/// random bit stream from the seed, so theta_i is that stream read from its bit i on (53 bits).
/// The exact values satisfy x_{i+1} = 4 x_i (1 - x_i); each stored one is within rounding of its
/// exact value, so unlike an iterated orbit it never collapses (a typical orbit of the map's
/// invariant density 1 / (pi sqrt(x (1 - x)))). Computed in parallel where OpenMP is built.
std::vector<double> logistic_exact(std::size_t n, std::uint64_t seed);

/// The logistic map in a chosen precision, from x0, r = 4 (for tests of the collapse check).
template <class T>
std::vector<T> logistic_orbit(std::size_t n, T x0);

/// The step at which the source's orbit ("logistic": r = 4 from 0.4, in double, as logistic_orbit
/// computes it) first reaches exactly 0, its fixed point: 15489530 in IEEE double. No series of
/// that system longer than this is chaotic (degenerate_orbit refuses it), so it bounds the sizes
/// a sweep of it can run. Computed once (about 50 ms); nullopt when the orbit has not collapsed
/// within 2^28 steps (a machine whose double rounds otherwise).
std::optional<std::uint64_t> logistic_collapse_step();

class text_file;

/// Reads a series: one number per line, or CSV (comma-separated, a header line of names allowed)
/// with `column` naming the column by header name or 1-based index (empty: the first). Blank lines
/// and lines starting with '#' are skipped. Throws usage_error("PATH:LINE: what is wrong") for a
/// malformed line, a value that is not a finite number, a missing column, or fewer than `minimum`
/// values; the file is read within bounds (inputs/text_file.hpp).
std::vector<double> read_series(const std::string& path, const std::string& column, std::size_t minimum = 2);
/// The same from an open text file.
std::vector<double> read_series(text_file& in, const std::string& column, std::size_t minimum = 2);

/// Why a generated orbit is no longer chaotic, or nullopt: its tail is one repeated value (a
/// fixed point) or repeats exactly with a period of at most 65536 samples over the last
/// max(8 periods, 1000) samples. Exact comparison: a finite-precision orbit cycles exactly.
std::optional<std::string> degenerate_orbit(std::span<const double> x);

}  // namespace ema
