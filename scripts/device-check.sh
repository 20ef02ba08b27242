#!/usr/bin/env bash
# On the GPU machine: build, run every test (the GPU ones included), probe the ceilings and
# benchmark a problem, writing logs and results under $OUT. Usage (from the repository root):
#   eval "$(bash .kit/setup.sh)"; scripts/device-check.sh [PROBLEM] [SIZES] [EXTRA ema run ARGS...]
set -uo pipefail
problem=${1:-search}
sizes=${2:-2^20,2^22,2^24,2^26,2^27,2^28}
shift 2 2>/dev/null || shift $#
source scripts/device-build.sh
ctest --test-dir $build -j 8 --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|Failed|Skipped|\*\*\*" "$out/ctest.log" | tail -15
$build/src/ema probe --db "$out/bench.db" 2>&1 | tail -12
$build/src/ema run "$problem" --sizes "$sizes" --db "$out/bench.db" --json "$out/$problem.json" --md "$out/$problem.md" "$@" 2>&1 | tail -60
