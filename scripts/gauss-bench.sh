#!/usr/bin/env bash
# On the GPU machine: build, run the gauss tests (CPU and GPU), then the measurements, each
# an `ema run` into one database under $OUT. Usage (from the repository root):
#   eval "$(bash .kit/setup.sh)"; scripts/gauss-bench.sh STEP...
# Steps: tests | gputest (test_gauss_gpu alone) | profile (cuda's device time by kind of work) | ncu (the strip kernel under Nsight Compute) | targets (cuda vs cusolver, 2000..16384) | source (the source's Table 3 experiment)
#        | table2 (the source's Table 2, 13 sizes) | unblocked (cuda-kv1/kv2/goncalves, 2000..5000) | cpu (seq, omp, omp-blocked at 4000)
set -uo pipefail
source scripts/device-build.sh
db="$out/gauss.db"
for step in "$@"; do
  start=$(date +%s)
  case $step in
    tests)
      ctest --test-dir $build -j 8 --output-on-failure > "$out/ctest.log" 2>&1
      grep -E "tests passed|Failed|Skipped|\*\*\*" "$out/ctest.log" | tail -15
      $build/tests/test_gauss_gpu > "$out/test_gauss_gpu.log" 2>&1; tail -4 "$out/test_gauss_gpu.log";;
    gputest)
      $build/tests/test_gauss_gpu > "$out/test_gauss_gpu.log" 2>&1; tail -4 "$out/test_gauss_gpu.log";;
    profile)
      EMA_GAUSS_PROFILE=1 $ema run gauss --variants cuda --sizes 2000,5000,16384 --reps 3 --no-energy --db "$out/profile.db" -q 2>&1 | tail -3;;
    ncu)  # the strip kernel alone, serialised by the profiler: its duration and where its warps wait
      for skip in 5 45; do
        ncu --target-processes all --kernel-name regex:k_panel --launch-skip $skip --launch-count 1 --clock-control none \
          --section SpeedOfLight --section WarpStateStats --section LaunchStats --section InstructionStats --section SchedulerStats \
          $ema run gauss --variants cuda --sizes 2000 --reps 1 --warmup 0 --no-energy --db "$out/ncu$skip.db" -q > "$out/ncu$skip.txt" 2>&1
        grep -E "Duration|Grid Size|Executed Instructions  |Issued Warp Per|No Eligible|Warp Cycles Per Issued|Stall" "$out/ncu$skip.txt" | head -20
      done;;
    targets)
      $ema run gauss --variants cuda,cusolver --sizes 2000,3000,4000,5000,8192,16384 --reps 10 --no-energy --db "$db" \
        --md "$out/targets.md" --stats -q 2>&1 | tail -5
      $ema show --db "$db" --stats 2>&1 | tail -40;;
    unblocked)
      $ema run gauss --variants cuda-kv1,cuda-kv2,cuda-goncalves --sizes 2000,3000,4000,5000 --reps 3 --no-energy --db "$db" \
        --md "$out/unblocked.md" 2>&1 | tail -40;;
    cpu)
      $ema run gauss --variants seq,omp,omp-blocked --sizes 4000 --reps 1 --warmup 0 --no-energy --db "$db" \
        --md "$out/cpu.md" --stats 2>&1 | tail -30;;
    table2)  # the source's Table 2 (complexities of the CUDA version): 13 sizes from 2000 to 5000
      $ema run gauss --variants cuda-kv1,cuda-kv2 --sizes 2000..5000+250 --reps 3 --warmup 0 --no-energy --db "$out/table2.db" -q 2>&1 | tail -2
      for m in total stage2 h2d; do $ema fit --db "$out/table2.db" --metric $m --stat mean --bootstrap 0 2>&1 | grep -E "^best|^minimum|· cuda"; done;;
    source)  # the source's Table 3 experiment; REPS=10 is the source's count (default 3: device time)
      $ema run gauss --variants seq,cuda-kv2,cuda-goncalves --sizes 2000,3000,4000,5000 --reps "${REPS:-3}" --warmup 0 \
        --no-energy --db "$db" --md "$out/source.md" --stats -q 2>&1 | tail -3
      $ema show --db "$db" --stats 2>&1 | sed -n '/repeated runs/,$p' | head -20;;
    *) echo "unknown step $step"; exit 2;;
  esac
  echo "== $step took $(( $(date +%s) - start )) s"
done
