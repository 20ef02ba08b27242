#!/bin/bash
# The stencil's measurements on the GPU machine (issue 15's targets; docs/problems/stencil.md and
# docs/perf-notes.md quote them): n = 16384, T = 1000 for the GPU variants in f32 and f64, the
# CPU variants at n = 16384 with T = 100, and the source's question, the best k per size.
# Usage (on the GPU machine, from the repository root): bash scripts/bench-stencil.sh [targets|k|all]
set -e
source scripts/device-build.sh
what=${1:-all}
db=$out/stencil.db
if [ "$what" = targets ] || [ "$what" = all ]; then
  for type in f32 f64; do
    $ema run stencil --db "$db" --variants cuda-naive,cuda --sizes 16384 --param steps=1000 --param type=$type --reps 5 --no-energy
  done
  $ema run stencil --db "$db" --variants cuda-listing --sizes 16384 --param steps=1000 --param k=1..8*2 --reps 3 --no-energy
  $ema run stencil --db "$db" --variants omp,omp-tb --sizes 16384 --param steps=100 --reps 3 --no-energy
fi
if [ "$what" = k ] || [ "$what" = all ]; then
  $ema run stencil --db "$db" --variants cuda-listing,cuda --sizes 2^8..2^14 --param k=1..16*2 --no-energy -q
  $ema show --db "$db" --best k
fi
