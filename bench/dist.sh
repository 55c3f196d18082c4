#!/usr/bin/env bash
# The distribution benchmark (make bench; docs/Benchmarks.rst): an array
# initialised by one thread on node 0, then one parallel pass that touches
# each page once; what it costs to move the pages to their threads.
#
#   1. emulated, one 2-node guest (2 threads): BENCH_PAIRS pairs of ours
#      (default settings) and the oracle at BENCH_MIB, back to back in
#      alternating order (ours/oracle: the median of the pairs' ratios);
#      then every variant and the 2008 user-level reference BENCH_REPS
#      times at BENCH_REF_MIB, interleaved (forwards, then backwards ...);
#   2. native, on this host (one NUMA node, KMP_NEXTTOUCH_FORCE=1 arms
#      anyway): nothing moves, so a variant's time over the no-migration
#      loop is the cost of its fault path, per page;
#   3. the RFC's own configuration (BENCH_SEED=1, the default; the suite's
#      reduced run makes 2 pairs and leaves the reference, about a minute
#      at this size, to FULL=1): 512 MiB, 8 threads on the 2-node guest (4
#      per vCPU), BENCH_SEED_PAIRS pairs ours/oracle and BENCH_SEED_REPS
#      runs of the reference (0: none), in a part of its own (dist-seed),
#      beside the RFC's 2518 ms (user level) / 366 ms (kernel).
#
#   4. BENCH_MECH_PAIRS=N (default 0; bench/kernels.sh sets it): N pairs of
#      ours with each mechanism forced (KMP_NEXTTOUCH_MECHANISM=move_pages,
#      =mbind), alternating, in the 2-node guest: rows ours-move_pages and
#      ours-mbind, which mechanism moves the pages faster on the guest's
#      kernel.
#
#   bench/dist.sh [run | parts DIR | report DIR]    (bench/lib.sh)
#   bench/dist.sh profile   variants that isolate one factor each (fixed
#                           windows, move_pages as the mechanism, the oracle
#                           with 512/64 pages per call and with next-touch's
#                           protection changes), one 2-node guest
#   bench/dist.sh seed      only part 3, in build/bench/seed
#   bench/dist.sh lankes [MiB] [VARIANTS]   bench/nexttouch_512mb.c (Lankes'
#                           RFC benchmark, 4 threads, default 512 aen) in a
#                           2-node guest, its output as it prints it
#
#   BENCH_MIB=256 BENCH_PAIRS=20 BENCH_REPS=3 BENCH_HOST_MIB=64   (defaults)
#   BENCH_REF_MIB=MiB       the all-variants part (default BENCH_MIB)
#   BENCH_HOST=0            no native part
#   BENCH_SEED=1 BENCH_SEED_PAIRS=3 BENCH_SEED_REPS=2   (defaults)
#   LIBOMP_DIR=dir          run against dir/libomp.so (a copy of it)
#
# Results (report): $DIR/dist/nexttouch_dist.csv (rows + the configuration
# as '#' lines), nexttouch_dist-phases.csv (fork, each thread's loop, join),
# nexttouch_dist-summary.txt (medians, ratios, per-page costs; printed) and
# nexttouch_dist.png.
FAMILY=dist
. "$(dirname "$0")/lib.sh"
mib=${BENCH_MIB:-256}
pairs=${BENCH_PAIRS:-20}
ref_mib=${BENCH_REF_MIB:-$mib}
reps=${BENCH_REPS:-3}
host=${BENCH_HOST:-1}
host_mib=${BENCH_HOST_MIB:-64}
seed=${BENCH_SEED:-1}
seed_pairs=${BENCH_SEED_PAIRS:-3}
seed_reps=${BENCH_SEED_REPS:-2}
mech_pairs=${BENCH_MECH_PAIRS:-0}
variants=ours-default,ours-exact,ours-thp,oracle,none

build() {
  compile nexttouch_dist "$TOP/bench/nexttouch_dist.c"
  compile reference_nexttouch "$TOP/bench/reference_nexttouch.c"
}

# The pairs (repetitions 1..pairs), then every variant (pairs+1 ...), the
# reference between the forward and the backward pass of the others.
parts() {
  param "$pairs pairs ours/oracle at $mib MiB, every variant and the reference $reps times" \
    "at $ref_mib MiB (2 nodes, 2 threads)$([ "$host" = 1 ] && echo "; native $host_mib MiB, $reps times")"
  local v=$variants r
  {
    echo "set -e; export OMP_NUM_THREADS=2 $OMP_SPREAD BENCH_WHERE=guest-tcg"
    echo "uname -r | sed 's/^/guest-kernel,/'"
    if [ "$pairs" -gt 0 ]; then echo "$DIR/bin/nexttouch_dist $mib $pairs ours-default,oracle"; fi
    for r in $(seq 1 "$reps"); do
      echo "BENCH_REP_OFFSET=$((pairs + r - 1)) $DIR/bin/nexttouch_dist $ref_mib 1 $v"
      echo "BENCH_REP_OFFSET=$((pairs + r - 1)) $DIR/bin/reference_nexttouch $ref_mib 1"
      v=$(echo "$v" | tr , '\n' | tac | paste -sd,)
    done
    local m=(move_pages mbind)
    for r in $(seq 1 "$mech_pairs"); do
      for k in 0 1; do
        local mech=${m[$(((r + k) % 2))]}
        echo "BENCH_REP_OFFSET=$((pairs + reps + r - 1)) KMP_NEXTTOUCH_MECHANISM=$mech" \
          "$DIR/bin/nexttouch_dist $mib 1 ours-default | sed 's/,ours-default,/,ours-$mech,/'"
      done
    done
  } | part dist-2n 2
  if [ "$seed" = 1 ]; then seed_part; fi
}

# The RFC's configuration: 512 MiB, 8 threads, 2 nodes.
seed_part() {
  param "seed: 512 MiB, 8 threads, 2 nodes: $seed_pairs pairs ours/oracle, the reference" \
    "$seed_reps times"
  {
    echo "export OMP_NUM_THREADS=8 $OMP_SPREAD BENCH_WHERE=guest-seed"
    echo "$DIR/bin/nexttouch_dist 512 $seed_pairs ours-default,oracle"
    if [ "$seed_reps" -gt 0 ]; then echo "$DIR/bin/reference_nexttouch 512 $seed_reps"; fi
  } | part dist-seed 2
}

# Native: every variant, the reference and the reference without move_pages.
native() {
  local r log=$DIR/logs/dist-host.log
  say "native on this host: $host_mib MiB, fault path forced on one node, $reps repetitions"
  export OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores BENCH_WHERE=host-native
  for r in $(seq 1 "$reps"); do
    BENCH_REP_OFFSET=$((r - 1)) KMP_NEXTTOUCH_FORCE=1 \
      "$DIR/bin/nexttouch_dist" "$host_mib" 1 "$variants"
    BENCH_REP_OFFSET=$((r - 1)) "$DIR/bin/reference_nexttouch" "$host_mib" 1
    BENCH_REP_OFFSET=$((r - 1)) "$DIR/bin/reference_nexttouch" "$host_mib" 1 nomove
  done >"$log"
}

report() {
  rm -f "$DIR/logs/dist-host.log"
  if [ "$host" = 1 ]; then native; fi
  $PY "$REPORT" dist "$DIR"
}

# The profile: one guest, every factor once per repetition.
profile() {
  local d=$TOP/build/bench/profile r cmd=""
  rm -rf "$d"
  setup_dir "$d"
  compile nexttouch_dist "$TOP/bench/nexttouch_dist.c"
  local pv=ours-default,ours-window512,ours-window64,ours-thp,oracle,oracle512,oracle64,oracle-prot512,none
  param "profile: every factor $reps times at $mib MiB (2 nodes, 2 threads)"
  for r in $(seq 1 "$reps"); do
    cmd+="BENCH_REP_OFFSET=$((r - 1)) $d/bin/nexttouch_dist $mib 1 $pv; "
    cmd+="BENCH_REP_OFFSET=$((r - 1)) KMP_NEXTTOUCH_MECHANISM=move_pages $d/bin/nexttouch_dist"
    cmd+=" $mib 1 ours-default | sed 's/ours-default/ours-default+mp/'; "
  done
  echo "export OMP_NUM_THREADS=2 $OMP_SPREAD BENCH_WHERE=guest-tcg; $cmd" | part dist-2n 2
  guests
  $PY "$REPORT" dist "$d"
}

# Lankes' benchmark, 4 threads on 2 nodes; the array starts on node 0, so
# each node gets room for all of it.
lankes() {
  local m=${1:-512} v=${2:-aen} d=$TOP/build/bench/lankes
  rm -rf "$d"
  setup_dir "$d"
  compile nexttouch_512mb "$TOP/bench/nexttouch_512mb.c" -Wno-unused-parameter
  "$GUEST_RUN" --nodes 2 --mem $((m + 512)) --file "$d/bin" --file "$d/lib" -- \
    env OMP_NUM_THREADS=4 $OMP_SPREAD "$d/bin/nexttouch_512mb" "$m" "$v"
}

seed_only() {
  local d=$TOP/build/bench/seed
  rm -rf "$d"
  setup_dir "$d"
  build
  seed_part
  local rc=0
  guests || rc=1
  $PY "$REPORT" dist "$d" || rc=1
  return $rc
}

case ${1:-run} in
profile) profile ;;
seed) seed_only ;;
lankes) shift; lankes "$@" ;;
*) driver_main "$@" ;;
esac
