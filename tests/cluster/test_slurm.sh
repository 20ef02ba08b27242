#!/bin/bash
# A real Slurm for ema slurm (issue 18): Debian's slurmctld, slurmd and munge, installed when
# missing, started as root without systemd on this one node with a generated slurm.conf in a
# temporary folder; a 4-task array over a small CPU plan, one task cancelled midway and
# resubmitted, the merged database checked (every point once, nothing lost). Stops exactly the
# daemons it started, by PID. Where the daemons cannot start it says why and exits 77 (ctest:
# not run), never 0. Usage: test_slurm.sh EMA_EXECUTABLE
set -u
ema=$(readlink -f "$1")
dir=$(mktemp -d /tmp/ema-slurm-test-XXXXXX)
pids=()
cleanup() {
  # Jobs first (their slurmstepd outlives slurmd), then the daemons this test started, by PID.
  if [ -n "${SLURM_CONF:-}" ] && command -v scancel >/dev/null; then
    scancel --user="$(id -un)" 2>/dev/null
    local end=$((SECONDS + 30))
    while squeue -h 2>/dev/null | grep -q . && [ $SECONDS -lt $end ]; do sleep 0.5; done
  fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done
  [ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
skip() { echo "NOT RUN: $*"; exit 77; }
fail() {
  echo "FAILED: $*"
  for f in "$dir"/slurmctld.log "$dir"/slurmd.log "$dir"/res/logs/*; do [ -f "$f" ] && { echo "== $f"; tail -20 "$f"; }; done
  exit 1
}
wait_for() {  # SECONDS COMMAND...: until COMMAND succeeds
  local end=$((SECONDS + $1)); shift
  until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.5; done
}

[ "$(id -u)" = 0 ] || skip "the Slurm daemons start as root here; this is uid $(id -u)"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null ||
  ! command -v sqlite3 >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurmctld slurmd munge slurm-client sqlite3 >"$dir/apt.log" 2>&1 ||
    skip "slurmctld, slurmd, munge, slurm-client or sqlite3 are missing and apt-get could not install them: $(tail -1 "$dir/apt.log")"
fi

# munge: its own key and socket folder.
mkdir -p "$dir/munge" && chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 2>/dev/null && chmod 400 "$dir/munge/key"
munged -F -f --socket="$dir/munge/sock" --key-file="$dir/munge/key" --log-file="$dir/munge/log" --pid-file="$dir/munge/pid" \
  --seed-file="$dir/munge/seed" >"$dir/munge/out" 2>&1 &
pids+=($!)
wait_for 10 test -S "$dir/munge/sock" || skip "munged did not start: $(tail -2 "$dir/munge/out" "$dir/munge/log" 2>/dev/null)"

# slurm.conf: this node with its real CPUs and a memory below what slurmd detects (above drains it).
host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
memory=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=ematest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$host CPUs=$(nproc) RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf  # never a stale /etc/slurm
slurmctld -D >"$dir/ctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$dir/d.out" 2>&1 &
pids+=($!)
wait_for 30 sh -c 'sinfo -h -o %t 2>/dev/null | grep -q idle' || skip "the node did not come up: $(tail -3 "$dir/slurmctld.log" "$dir/slurmd.log" "$dir/ctld.out" "$dir/d.out" 2>/dev/null)"
echo "slurm up: $(sinfo -h -o '%P %t %N %c')"

# A 4-task array of a small CPU plan; each point at least 1 s, so a task takes seconds. The tasks
# inherit this environment (sbatch's --export=ALL): their node-local disk is $dir/node-tmp.
cd "$dir" || exit 1
export EMA_NODE_DIR=$dir/node TMPDIR=$dir/node-tmp
mkdir -p "$TMPDIR"
"$ema" slurm search --variants seq,omp --sizes 2^10..2^21 --min-time 1 --max-time 1 --no-energy --tasks 4 --shared \
  --results "$dir/res" --submit >"$dir/submit.out" 2>&1 || fail "ema slurm --submit: $(cat "$dir/submit.out")"
array=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\).*/\1/p' "$dir/submit.out")
merge=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\).*/\2/p' "$dir/submit.out")
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in: $(cat "$dir/submit.out")"
echo "array $array, merge $merge"

# Cancel task 1 once it runs and has stored a point.
wait_for 60 sh -c "squeue -h -j ${array}_1 -o %t | grep -q R" || fail "task 1 never ran"
wait_for 60 sh -c "[ \$(sqlite3 $TMPDIR/ema-shard-1.*/shard.db 'select count(*) from points' 2>/dev/null || echo 0) -ge 1 ]" ||
  fail "task 1 stored no point"
scancel "${array}_1" || fail "scancel ${array}_1 refused"; echo "cancelled ${array}_1"
wait_for 120 sh -c "! squeue -h -j $merge | grep -q ." || fail "the merge job did not end"
grep -q -- "--array=1" "$dir/res/logs/merge.out" || fail "the merge did not name task 1 as missing: $(cat "$dir/res/logs/merge.out")"
partial=$(sqlite3 "$dir/res/shard-1.db" "select count(*) from points")
planned=$(sqlite3 "$dir/res/shard-1.db" "select json_array_length(plan_json, '$.points') from experiments")  # a shard stores its own points
[ "$partial" -ge 1 ] && [ "$partial" -lt "$planned" ] || fail "the cancelled task's copy holds $partial of its $planned points"
echo "task 1 cancelled with $partial of $planned points stored"

# Resubmit task 1: it continues its own database; then merge again.
again=$(sbatch --parsable --array=1 "$dir/res/array.sbatch") || fail "resubmission refused"
wait_for 120 sh -c "! squeue -h -j $again | grep -q ." || fail "the resubmitted task did not end"
grep -q "resuming shard 1/4" "$dir/res/logs/shard-1.out" || fail "the resubmitted task did not resume: $(cat "$dir/res/logs/shard-1.out")"
[ "$(sqlite3 "$dir/res/shard-1.db" "select count(*) from experiments")" = 1 ] || fail "the resubmitted task started a second experiment"
ls -d "$TMPDIR"/ema-shard-* 2>/dev/null && fail "a task left its private folder behind"
# The merge job again, as its message says: it reads the earlier merge first and replaces it.
again=$(sbatch --parsable "$dir/res/merge.sbatch") || fail "the merge job was refused"
wait_for 120 sh -c "! squeue -h -j $again | grep -q ." || fail "the second merge job did not end"
grep -q "replaces it" "$dir/res/logs/merge.out" || fail "the second merge did not carry the first: $(cat "$dir/res/logs/merge.out")"
[ "$(sqlite3 "$dir/res/merged.db" "select count(*) from experiments")" = 1 ] || fail "merged.db holds more than one experiment"
[ "$(sqlite3 "$dir/res/merged.db" "select count(*) from points")" = 24 ] || fail "merged.db does not hold the 24 points"
"$ema" merge "$dir/res/final.db" "$dir"/res/shard-*.db --quiet >"$dir/merge.out" 2>&1 || fail "ema merge: $(cat "$dir/merge.out")"
total=$(sqlite3 "$dir/res/final.db" "select count(*) from points")
distinct=$(sqlite3 "$dir/res/final.db" "select count(distinct ordinal) from points")
[ "$total" = 24 ] && [ "$distinct" = 24 ] || fail "the merged database holds $total points ($distinct distinct), not 24"
[ "$(sqlite3 "$dir/res/final.db" "select count(*) from points where json_extract(notes_json, '$.slurm_job') is null")" = 0 ] ||
  fail "a point does not name its Slurm job"
"$ema" slurm --status "$array" >"$dir/status.out" 2>&1 || fail "ema slurm --status: $(cat "$dir/status.out")"
echo "merged: $total points, every one once; status: $(tail -2 "$dir/status.out" | head -1)"
