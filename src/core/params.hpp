// Problem parameters (`--param key=value`): each problem declares its parameters with a kind,
// a default and, for choices, the allowed values. A param_set is the fully resolved, validated
// map that is stored with every point.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ema {

enum class param_kind { integer, real, boolean, choice, text };

/// One declared parameter. Constant-initialisable so problems can declare them statically.
struct param_spec {
  const char* name;
  param_kind kind;
  const char* default_value;
  const char* help;
  const char* choices = nullptr;  ///< for param_kind::choice: values separated by '|'
};

using param_map = std::map<std::string, std::string, std::less<>>;

/// A resolved, validated set of parameter values (every declared parameter present).
class param_set {
 public:
  param_set() = default;

  /// Resolves `key=value` assignments against the declared specs: unknown keys and values of
  /// the wrong kind throw usage_error naming the valid ones. Defaults fill the rest.
  static param_set resolve(std::string_view problem, std::span<const param_spec> specs,
                           const std::vector<std::string>& assignments);

  /// Builds from stored values (already validated when stored).
  static param_set from_map(param_map values);

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

/// Splits "a|b|c" into its parts.
std::vector<std::string> split_choices(const char* choices);

}  // namespace ema
