#!/bin/sh
# The tree the GPU machine's `run` copies (docs/development.md): tracked files and untracked ones
# git does not ignore, 64 MiB in all with what a call carries. A binary built here (5.1 MB of xz)
# and the device kit (1.7 MB) must still fit beside it, so the tree is held under LIMIT MiB (54 by
# default: on 2026-12-03 a tree of 58.7 MiB with 5 MiB carried, 63.7 by this count, was refused,
# so the copy counts more than these bytes). Most of it is the real set's databases
# (tests/analysis/real/README.md says how they were thinned when they outgrew it). Not run (77) outside a git work tree, as an unpacked tarball.
# Usage: test_tree_size.sh SOURCE_DIR [LIMIT_MIB]
set -eu
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: test_tree_size.sh SOURCE_DIR [LIMIT_MIB]"; exit 2; }
src=$1
[ -d "$src" ] || { echo "test_tree_size.sh: '$src' is not a directory"; exit 2; }
limit=${2:-54}
case $limit in '' | *[!0-9]*) echo "test_tree_size.sh: the limit must be a whole number of MiB, not '$limit'"; exit 2 ;; esac
command -v git >/dev/null 2>&1 || { echo "skipped: no git"; exit 77; }
[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$src" && pwd -P)" ] || { echo "skipped: $src is not a git work tree's top"; exit 77; }
bytes=$(cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r stat -c %s -- 2>/dev/null | awk '{s += $1} END {print s + 0}')
mib=$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}')
largest=$(cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r du -b -- 2>/dev/null | sort -rn | head -3 | awk '{printf "%s%s (%.1f MiB)", sep, $2, $1 / 1048576; sep = ", "}')
if awk -v b="$bytes" -v l="$limit" 'BEGIN {exit !(b > l * 1048576)}'; then
  echo "the tree the GPU machine copies is $mib MiB, over $limit MiB: a carried binary and the device kit would not fit in its 64 MiB; the largest files: $largest"
  exit 1
fi
echo "the tree the GPU machine copies is $mib MiB (at most $limit MiB leaves room for a carried binary and the device kit)"
