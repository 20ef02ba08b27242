#!/usr/bin/env bash
# On the GPU machine: build, run every test, then a calibrated sweep of search with every variant,
# its fits (kernel and total) and its report, writing logs and results under $OUT. Usage (from the
# repository root):
#   eval "$(bash .kit/setup.sh)"; EMA_GIT_COMMIT=<commit> scripts/device-analysis.sh [BUDGET]
set -uo pipefail
out=${OUT:-/tmp/ema-out}
budget=${1:-150s}
build=build/device
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMA_WITH_CUDA=ON > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
( time cmake --build $build -j 16 ) > "$out/build.log" 2>&1 || { grep -E "error" -A5 "$out/build.log" | head -40; exit 1; }
echo "== build ok"; tail -3 "$out/build.log"
ctest --test-dir $build -j 8 --output-on-failure --timeout 600 > "$out/ctest.log" 2>&1
grep -E "tests passed|Failed|Not Run|\*\*\*" "$out/ctest.log" | tail -12
ema=$build/src/ema
$ema probe --db "$out/a.db" > "$out/probe.txt" 2>&1
( time $ema run search --budget "$budget" --db "$out/a.db" --json "$out/budget.json" --stats ) > "$out/budget.txt" 2>&1
tail -30 "$out/budget.txt"
$ema fit --db "$out/a.db" --metric kernel > "$out/fit_kernel.txt" 2>&1
grep -E "^search|best|knee|interval|held" "$out/fit_kernel.txt" | head -40
$ema fit --db "$out/a.db" > "$out/fit_total.txt" 2>&1
$ema report --db "$out/a.db" --html "$out/report.html" --md "$out/report.md" 2>&1 | tail -2
