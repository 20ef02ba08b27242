#!/bin/bash
# The graph problems' measurements on the GPU machine (issue 17's targets; docs/problems/bfs.md,
# sssp.md and docs/perf-notes.md quote them), 16 roots, degree 16.
# Usage (on the GPU machine, from the repository root): bash scripts/bench-graphs.sh [tests|targets|omp|delta|grid|all]
#   tests    the GPU tests of the graph problems and the conformance tests
#   targets  bfs on kron-24 and urand-24, sssp on kron-24: every variant that finishes in the timeout
#   omp      the OpenMP variants alone at the same sizes (the 0.7 x GAP on 16 cores)
#   delta    sssp's delta-stepping width swept at kron-22 (`ema show --best delta`)
#   grid     both problems on a 2^22-vertex grid (high diameter), reported apart
# Built graphs are kept in $out/cache between the steps (ema run --cache).
set -e
source scripts/device-build.sh
what=${1:-all}
db=$out/graphs.db
cache=(--cache "$out/cache" --cache-cap 16G)
if [ "$what" = tests ] || [ "$what" = all ]; then
  (cd $build && ctest -R "test_graphs_gpu|test_conformance_gpu" --output-on-failure)
fi
if [ "$what" = targets ] || [ "$what" = all ]; then
  $ema run bfs --db "$db" "${cache[@]}" --sizes 2^24 --param graph=kron,urand --reps 3 --timeout 600
  $ema run sssp --db "$db" "${cache[@]}" --sizes 2^24 --param graph=kron --reps 3 --timeout 600
fi
if [ "$what" = omp ]; then
  $ema run bfs --db "$db" "${cache[@]}" --variants omp,omp-listing --sizes 2^24 --param graph=kron,urand --reps 3 --no-energy
  $ema run sssp --db "$db" "${cache[@]}" --variants omp,omp-listing --sizes 2^24 --param graph=kron --reps 3 --no-energy
fi
if [ "$what" = delta ] || [ "$what" = all ]; then
  $ema run sssp --db "$db" "${cache[@]}" --variants omp,cuda --sizes 2^22 --param graph=kron --param delta=2..256*2 --reps 3 --no-energy
  $ema show --db "$db" --best delta
fi
if [ "$what" = grid ] || [ "$what" = all ]; then
  $ema run bfs --db "$db" "${cache[@]}" --sizes 2^22 --param graph=grid --param roots=4 --reps 3 --timeout 600 --no-energy
  $ema run sssp --db "$db" "${cache[@]}" --sizes 2^22 --param graph=grid --param roots=4 --reps 3 --timeout 600 --no-energy
fi
