#!/usr/bin/env bash
# Hyperfine sweeps of ordinary programs with known costs, to judge `ema fit --from hyperfine` on data
# no part of ema made (issue 29; tests/analysis/real/README.md). Writes hyperfine-<name>.json into
# the folder given (default: the current one). Needs Debian's hyperfine, mawk (awk), gzip, coreutils.
#   tests/analysis/real/programs/hyperfine_sweeps.sh tests/analysis/real
set -euo pipefail
mkdir -p "${1:-.}"
out=$(realpath "${1:-.}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
list=""
for e in $(seq 14 22); do
  n=$((1 << e)); list="$list${list:+,}$n"
  awk -v n=$n 'BEGIN{srand(7); for(i=0;i<n;i++) printf "%d\n", int(rand()*1e9)}' > "nums_$n.txt"
  head -c $n /dev/urandom > "bytes-$n.bin"
done
hf() { hyperfine -N --warmup 1 --runs 5 --style none "$@" > /dev/null; }
# Θ(n log n): sort n numbers (the number inside the file's name is n).
hf -L n "$list" --export-json "$out/hyperfine-sort.json" 'sort -n nums_{n}.txt -o /dev/null'
# Θ(n): compress and hash n bytes.
hf -L n "$list" --export-json "$out/hyperfine-bytes.json" 'gzip -1 -c bytes-{n}.bin' 'sha256sum bytes-{n}.bin' 'wc -l nums_{n}.txt'
# Θ(n²): a double loop in awk.
hf -P n 64 4096 -D 256 --export-json "$out/hyperfine-awk-loops.json" "awk -v n={n} 'BEGIN{for(i=0;i<n;i++)for(j=0;j<n;j++)s++}'"
# Θ(φ^n): the recursive Fibonacci number in awk.
hf -P n 14 30 -D 2 --export-json "$out/hyperfine-awk-fib.json" "awk -v n={n} 'function f(k){return k<2?k:f(k-1)+f(k-2)} BEGIN{print f(n)}'"
