#!/bin/sh
# cmake/write_git_commit.cmake records the source tree's own commit: none when the tree sits inside
# another git repository (vendored, or unpacked from a tarball into a user's repository), its own
# when it is a repository's top, and EMA_GIT_COMMIT when given.
# Usage: test_git_commit.sh SCRIPT WORKDIR
set -eu
script=$1
work=$2
command -v git >/dev/null 2>&1 || { echo "skipped: no git"; exit 77; }
rm -rf "$work"
mkdir -p "$work/outer/vendored/ema"
commit() { git -c user.email=test@example.invalid -c user.name=test commit -q --allow-empty -m "$1"; }
record() { env -u EMA_GIT_COMMIT cmake -DSOURCE_DIR="$work/outer/vendored/ema" -DOUT="$work/$1" -P "$script"; }
cd "$work/outer" && git init -q . && commit outer
record inside.cpp
grep -q '"unknown"' "$work/inside.cpp" || { echo "inside another repository it recorded: $(cat "$work/inside.cpp")"; exit 1; }
cd "$work/outer/vendored/ema" && git init -q . && commit own
own=$(git rev-parse --short=12 HEAD)
record own.cpp
grep -q "\"$own\"" "$work/own.cpp" || { echo "its own repository's commit $own not recorded: $(cat "$work/own.cpp")"; exit 1; }
EMA_GIT_COMMIT=given123 cmake -DSOURCE_DIR="$work/outer/vendored/ema" -DOUT="$work/given.cpp" -P "$script"
grep -q '"given123"' "$work/given.cpp" || { echo "EMA_GIT_COMMIT not recorded: $(cat "$work/given.cpp")"; exit 1; }
echo ok
