#!/bin/bash
# The sort's measurements on the GPU machine (issue 16's targets and the study's time-and-energy
# table; docs/problems/sort.md and docs/perf-notes.md quote them), u32 uniform keys unless named.
# Usage (on the GPU machine, from the repository root): bash scripts/bench-sort.sh [quick|targets|launch|dists|energy|all]
#   quick    every GPU variant at 2^24 (a first look)
#   targets  ours (merge-path, quick-sample) against cub-merge at 2^24..2^28, each CDP variant
#            against its host-loop twin, radix-omp against gnu-parallel at 2^26 and 2^28
#   dists    the GPU quicksorts on sorted, reversed, equal and organ keys at 2^24
#   launch   the CDP variants at 2^20..2^28 beside merge-cdp's tree of launches with no work in it
#            (bench/cdp_launch_tree.cu): the launches' share of merge-cdp's time, measured
#   energy   the study's table: every variant at 2^20..2^28 with energy (NVML; RAPL where present)
set -e
source scripts/device-build.sh
what=${1:-all}
db=$out/sort.db
gpu=quick-cuda,merge-cuda,quick-cdp,merge-cdp,merge-path,quick-sample,cub-radix,cub-merge,thrust-sort
if [ "$what" = quick ]; then
  $ema run sort --db "$db" --variants $gpu --sizes 2^24 --reps 3 --no-energy
fi
if [ "$what" = targets ] || [ "$what" = all ]; then
  $ema run sort --db "$db" --variants merge-path,quick-sample,cub-merge,cub-radix,quick-cdp,quick-cuda,merge-cdp --sizes 2^24..2^28 --reps 5 --no-energy
  $ema run sort --db "$db" --variants radix-omp,gnu-parallel --sizes 2^26,2^28 --reps 3 --no-energy
fi
if [ "$what" = launch ] || [ "$what" = all ]; then
  $ema run sort --db "$db" --variants merge-cdp,quick-cdp,merge-path --sizes 2^20,2^22,2^24,2^26,2^28 --reps 5 --no-energy
  $build/bench/ema_bench_cdp_launch_tree 20 22 24 26 28 | tee "$out/cdp_launch_tree.tsv"
fi
if [ "$what" = dists ] || [ "$what" = all ]; then
  for dist in sorted reversed equal organ; do
    $ema run sort --db "$db" --variants quick-sample,quick-cuda,quick-cdp,cub-merge --sizes 2^24 --param dist=$dist --reps 5 --no-energy
  done
fi
if [ "$what" = energy ] || [ "$what" = all ]; then
  $ema run sort --db "$db" --sizes 2^20..2^28 --timeout 120
fi
