#!/usr/bin/env bash
# On the GPU machine: build, run the rqa tests (CPU and GPU), then the measurements, each an
# `ema run` into one database under $OUT. Usage (from the repository root):
#   eval "$(bash .kit/setup.sh)"; scripts/rqa-bench.sh STEP...
# Steps: tests (every test) | gputest (test_rqa_gpu and test_rqa_cpu) | exact (exact-cuda to n = 10^6, exact-omp at 10^5)
#        | motif (motif-cuda: rate with 10^8 cells, error with 2·10^6, bias against exact at 10^5) | seed (seed-* at the source's settings)
#        | table1 (the source's Table 1 sizes n = 400·4^k to 419 430 400: time) | table1-lam (LAM to 0.1 % against exact LAM)
#        | bias (the source's estimator against exact LAM, by Q)
set -uo pipefail
source scripts/device-build.sh
db="$out/rqa.db"
table1_sizes=400,1600,6400,25600,102400,409600,1638400,6553600,26214400,104857600,419430400
for step in "$@"; do
  start=$(date +%s)
  case $step in
    tests)
      ctest --test-dir $build -j 8 --output-on-failure > "$out/ctest.log" 2>&1
      grep -E "tests passed|Failed|Skipped|\*\*\*" "$out/ctest.log" | tail -15;;
    gputest)
      $build/tests/test_rqa_gpu > "$out/test_rqa_gpu.log" 2>&1; grep -E "^\[  |FAILED|Failure|Expected|Which|error" "$out/test_rqa_gpu.log" | head -30
      $build/tests/test_rqa_cpu > "$out/test_rqa_cpu.log" 2>&1; tail -2 "$out/test_rqa_cpu.log";;
    exact)
      $ema run rqa --variants exact-cuda --sizes 100000,316228,1000000 --reps 3 --no-energy --db "$db" --md "$out/exact.md" 2>&1 | tail -8
      $ema run rqa --variants exact-omp,exact-seq --sizes 30000 --reps 1 --warmup 0 --no-energy --db "$db" --md "$out/exact-cpu.md" 2>&1 | tail -6
      $ema run rqa --variants exact-omp --sizes 100000 --reps 1 --warmup 0 --no-energy --db "$db" 2>&1 | tail -5;;
    motif)
      $ema run rqa --variants motif-cuda --sizes 100000 -p cells=100000000 --reps 3 --no-energy --db "$db" --json "$out/motif-1e8.json" 2>&1 | tail -5
      $ema run rqa --variants motif-cuda --sizes 100000,1000000 -p cells=2000000 --reps 3 --no-energy --db "$db" --json "$out/motif-2e6.json" 2>&1 | tail -5
      $ema run rqa --variants exact-cuda --sizes 100000 --reps 1 --no-energy --db "$db" --json "$out/exact-1e5.json" 2>&1 | tail -4
      for f in motif-1e8 motif-2e6 exact-1e5; do grep -o '"LAM[_a-z]*": *[0-9.e-]*' "$out/$f.json" | head -6 | tr '\n' ' '; echo " ($f)"; done;;
    seed)
      $ema run rqa --variants microstates-seq,microstates-omp,microstates-cuda,motif-omp,motif-cuda --sizes 102400,1638400 --reps 3 --no-energy --db "$db" \
        --md "$out/seed.md" 2>&1 | tail -14;;
    table1)  # the source's Table 1 sizes n = 400·4^k to 419 430 400, on the exact logistic orbit (the iterated one collapses near 1.5·10^7)
      $ema run rqa --variants microstates-seq,microstates-omp,microstates-cuda,motif-omp,motif-cuda --sizes $table1_sizes -p system=logistic-exact --reps 3 \
        --no-energy --db "$out/table1.db" -q --md "$out/table1.md" 2>&1 | tail -1
      grep -E "^\| +[0-9]+ \| [a-z]" "$out/table1.md" | head -55;;
    table1-lam)  # LAM to 0.1 %: motif-cuda with rse = 3·10^-4 at every size, exact-cuda where affordable, the same series (same parameters, same seed)
      lam=(-p system=logistic-exact -p rse=0.0003 --no-energy --db "$out/lam.db" -q)
      $ema run rqa --variants motif-cuda --sizes $table1_sizes --reps 3 "${lam[@]}" --json "$out/table1-rse.json" 2>&1 | tail -1
      $ema run rqa --variants exact-cuda --sizes 400,1600,6400,25600,102400,409600,1638400 --reps 1 "${lam[@]}" --json "$out/table1-exact.json" 2>&1 | tail -1
      rm -f "$out/lam.db";;
    bias)  # the source's estimator against exact LAM of the same series: Q = 50..400, 20 000 microstates each, n = 102 400 and 409 600
      for q in 50 100 200 400; do
        $ema run rqa --variants microstates-cuda,exact-cuda --sizes 102400,409600 -p system=logistic-exact -p Q=$q -p samples=20000 --reps 1 \
          --no-energy --db "$out/bias.db" --json "$out/bias-q$q.json" -q 2>&1 | tail -1
      done
      rm -f "$out/bias.db";;
    *) echo "unknown step $step"; exit 2;;
  esac
  echo "== $step took $(( $(date +%s) - start )) s"
done
