// EMA's family of complexity equations (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2):
//
//     T(n) = a0 · n^a1 · a2^(n^a3 · (log2 n)^a4) · (log2 n)^a5,   a0, a2 > 0,
//
// plus an additive constant c >= 0 that EMA lacks (a fixed overhead: a kernel launch, a process
// start), and, for the class set (class_set.hpp), an optional lower-order term d · n^l1 · log2(n)^l5
// beside the leading one: a cost made of a part that grows slowly and one that grows fast (a GPU
// elimination's n kernel launches beside its n³ work) is neither class alone. A `shape` says which terms a candidate has and which exponents are fitted ("free")
// rather than fixed on the lattice of halves; an `equation` is a shape with its coefficients and
// its errors against the data. Its coefficient count, the number of fitted values, is what EMA's
// "best equation" minimises, so `1.07e-06 · n^3` (lattice exponent, 1 coefficient) is simpler than
// `1.40e-06 · n^2.97` (free exponent, 2 coefficients), as in the source's Table 1.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ema::fit {

/// The Θ class of an equation: n^n_exp · (log n)^log_exp · base^(n^exp_n · (log n)^exp_log), with
/// exponents on the lattice of halves and the base to three significant digits.
struct theta_class {
  double n = 0;                    ///< exponent of n
  double log = 0;                  ///< exponent of log n
  std::optional<double> exp_base;  ///< base of the exponential term, when there is one
  double exp_n = 1, exp_log = 0;   ///< its exponent n^exp_n · (log n)^exp_log

  std::string text() const;  ///< "Θ(n³)", "Θ(n log² n)", "Θ(√n)", "Θ(2^n)", "Θ(1)"
  nlohmann::json to_json() const;
  bool operator==(const theta_class&) const = default;
};

/// A polynomial class as a reader writes it: "1", "log n", "n", "n log n", "n^2", "n^1.5 log^2 n",
/// "sqrt n" (spaces optional around ^). Throws std::invalid_argument naming the text otherwise.
theta_class parse_theta(const std::string& text);

struct shape {
  double a1 = 0, a5 = 0;  ///< values when fixed; starting values when free
  bool free_a1 = false, free_a5 = false;
  /// How far a free exponent may move from its starting value (fit.cpp): half a lattice step when
  /// it refines a class; wider where it estimates the data's own exponent (the bootstrap's).
  double free_half = 0.5;
  bool exp_term = false;  ///< the a2^(n^a3 · log2(n)^a4) term (a2 is then always fitted)
  double a3 = 1, a4 = 0;  ///< its exponents, always on the lattice
  bool constant = false;  ///< the additive constant c
  /// The lower-order term d · n^l1 · log2(n)^l5 (d >= 0 fitted, its exponents fixed, below the
  /// leading term's).
  bool lower = false;
  double l1 = 0, l5 = 0;
  /// The lower-order term is subtracted, − d · n^l1 · log2(n)^l5: a base case cheaper per unit than
  /// the leading term's levels (a merge sort whose leaves are sorted in a cache at a fraction of a
  /// merge level's cost a key: T = a · n log2(n/leaf) + b · n = a · n log n − d · n).
  bool lower_less = false;

  /// Fitted values: a0, the free exponents, a2, c, d.
  int coefficient_count() const { return 1 + free_a1 + free_a5 + exp_term + constant + lower; }
  /// A stable identity, used to keep one fit per shape.
  std::string key() const;
  bool operator==(const shape&) const = default;
};

struct equation {
  shape form;
  double a0 = 1, a1 = 0, a2 = 1, a3 = 1, a4 = 0, a5 = 0, c = 0;
  double d = 0;  ///< the lower-order term's coefficient (form.lower)
  /// Errors against the data it was fitted to, relative: mean squared, mean absolute, maximum.
  double mse = 0, mae = 0, max_rel_err = 0;

  /// Builds the equation of a shape with its fixed exponents filled in.
  static equation of(const shape& s);

  double operator()(double n) const;
  /// ln of the leading term (everything but c and the lower-order term); finite even where the
  /// value overflows.
  double log_term(double n) const;
  /// The lower-order term's value at n (0 without one).
  double lower_term(double n) const;
  int coefficient_count() const { return form.coefficient_count(); }

  /// "1.400e-06 · n^2.97 · log2(n)^0.5 + 2.1e-05 · n + 3.2e-04"
  std::string formula() const;
  theta_class theta() const;
  /// {"formula", "coefficients", "count", "theta", "mse", "mae", "max_rel_err"}
  nlohmann::json to_json() const;
};

}  // namespace ema::fit
