#!/bin/sh
# An example generator for `ema exec`: writes N pseudo-random integers, one per line, to FILE,
# the same for the same SEED.   usage: gen-random.sh N FILE SEED
set -eu
[ $# -eq 3 ] || { echo "usage: gen-random.sh N FILE SEED" >&2; exit 2; }
awk -v n="$1" -v seed="$3" 'BEGIN { srand(seed % 2147483647); for (i = 0; i < n; i++) print int(rand() * 1000000000) }' > "$2"
