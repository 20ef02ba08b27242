#!/usr/bin/env bash
# Formats ema's C++ and CUDA sources with .clang-format (Debian 12's clang-format 14, which `make
# test-deps` installs), or with --check says which files it would change and fails (exit 1), as CI
# does through the test `sources_follow_clang_format`. Exit 77 (a test not run) without clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$tool" ]; then
  echo "format.sh: clang-format is not installed (Debian: apt install clang-format)" >&2
  exit 77
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h' | grep -v -e '/corpus/' -e '^tests/inputs/tools/')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    "$tool" --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf 'format.sh: %d file(s) differ from .clang-format (make format fixes them):\n' "${#bad[@]}" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format.sh: ${#files[@]} files follow .clang-format"
else
  "$tool" -i "${files[@]}"
fi
