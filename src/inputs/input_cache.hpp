// The folder where `ema exec` keeps the inputs its generator wrote, so that later runs reuse them
// (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2), within a disk cap: the least recently used go first.
//
// ema owns the folder, and deletes nothing else. It is marked by a CACHEDIR.TAG (the Cache
// Directory Tagging convention, so that backup tools skip it) naming ema; ema marks a folder only
// when it is new, empty, or holds nothing but ema's own inputs (a cache made before the mark).
// A folder holding anything else is refused (usage_error), never used. Inputs live one level down,
// in a folder per problem name, as n<N>-s<S>-<16 hex digits>.in; trimming considers only regular
// files of exactly that form (never a link, never a file elsewhere) and a generation left
// unfinished (the same name + .partial) a day old.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace ema {

class input_cache {
 public:
  /// Opens the cache at `dir` (made absolute), creating and marking it if needed; usage_error when
  /// it cannot be created or holds files that are not ema's (naming one).
  static input_cache open(const std::string& dir);

  const std::filesystem::path& root() const { return root_; }
  /// Where the input of (problem, n, seed, key) lives; its folder is created.
  std::filesystem::path input_path(const std::string& problem, std::uint64_t n, std::uint64_t seed, std::uint64_t key) const;
  /// Deletes the least recently used inputs until the cache holds at most `cap` bytes, never `keep`.
  void trim(double cap, const std::filesystem::path& keep) const;

  /// Whether a file name is one ema gives an input (or, with `partial`, an input being written).
  static bool input_name(const std::string& name, bool partial = false);

 private:
  explicit input_cache(std::filesystem::path root) : root_(std::move(root)) {}
  std::filesystem::path root_;
};

}  // namespace ema
