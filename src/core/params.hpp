// Problem parameters (`--param key=value`): each problem declares its parameters with a kind,
// a default and, for choices, the allowed values. A param_set is the fully resolved, validated
// map that is stored with every point.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ema {

/// integer: a 64-bit integer; real: a finite number; boolean: true/false (1/0, yes/no, on/off);
/// choice: one of the listed values; text: any UTF-8 text; path: a file to read (empty: none),
/// which must be a regular file and is stored as an absolute path, so that the experiment reads
/// the same file when resumed from another folder; output: a new file the problem writes (empty:
/// none), `{n}` in it standing for the size (output_file_at), checked against the database's files
/// before a sweep starts.
enum class param_kind { integer, real, boolean, choice, text, path, output };

/// The file an output parameter names at size `n`: its value with every "{n}" replaced by n.
std::string output_file_at(const std::string& pattern, std::uint64_t n);

/// One declared parameter. Constant-initialisable so problems can declare them statically.
struct param_spec {
  const char* name;
  param_kind kind;
  const char* default_value;
  const char* help;
  const char* choices = nullptr;  ///< for param_kind::choice: values separated by '|'
  /// A tuning parameter (the stencil's steps per load): read only by the variants that name it in
  /// their `tuning` (core/problem.hpp); the others keep its default, so an axis over it does not
  /// multiply their points.
  bool tuning = false;
};

using param_map = std::map<std::string, std::string, std::less<>>;

/// A resolved, validated set of parameter values (every declared parameter present).
class param_set {
 public:
  param_set() = default;

  /// Resolves `key=value` assignments against the declared specs: unknown keys and values of
  /// the wrong kind throw usage_error naming the valid ones; a key given twice too. Defaults fill
  /// the rest; paths are made absolute.
  static param_set resolve(std::string_view problem, std::span<const param_spec> specs, const std::vector<std::string>& assignments);

  /// Builds from stored values (already validated when stored).
  static param_set from_map(param_map values);

  /// Stored values read back against the problem's declared specs: each value checked against its
  /// kind (a path's file need not exist any more), a parameter the store lacks (added to ema after
  /// the experiment) given its default. usage_error for an unknown key or a value of the wrong kind
  /// (a row changed by hand): the caller leaves out what needs the parameters.
  static param_set restore(std::string_view problem, std::span<const param_spec> specs, const param_map& stored);
  /// The same from the stored JSON object of a point (`{"k":"v",...}`); nullopt where restore
  /// refuses it or it is no such object.
  static std::optional<param_set> restore_json(std::string_view problem, std::span<const param_spec> specs, std::string_view stored_json);

  /// A copy with `key` set to `value`, checked by the caller (a launch override, core/launch.hpp).
  param_set with(const std::string& key, const std::string& value) const {
    param_set out = *this;
    out.values_[key] = value;
    return out;
  }

  const std::string& text(std::string_view key) const;
  std::int64_t integer(std::string_view key) const;
  double real(std::string_view key) const;
  bool boolean(std::string_view key) const;

  const param_map& values() const { return values_; }
  /// Canonical JSON text (sorted keys), used as the identity of a point's parameters.
  std::string canonical_json() const;
  /// `k=v,k=v` for tables.
  std::string short_text() const;

  bool operator==(const param_set&) const = default;

 private:
  param_map values_;
};

/// The integer parameter `key` of `problem`, which must lie in [lo, hi]: usage_error otherwise,
/// naming the parameter, its value and the range.
std::int64_t integer_in(const param_set& p, std::string_view problem, std::string_view key, std::int64_t lo, std::int64_t hi);
/// The number `key`, which must lie in [lo, hi] (and be finite).
double real_in(const param_set& p, std::string_view problem, std::string_view key, double lo, double hi);

/// Splits "a|b|c" into its parts.
std::vector<std::string> split_choices(const char* choices);

}  // namespace ema
