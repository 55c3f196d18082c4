#!/usr/bin/env bash
# Jacobi and CG with serial initialisation: next-touch against the
# alternatives (make bench-solvers; docs/Benchmarks.rst). bench/apps/jacobi.c
# and bench/apps/cg3d.c (3-D unstructured, RCM order) in four guest parts:
#
#   solvers-main      2 nodes: variants none, nexttouch, oracle (batched
#                     move_pages of every page to its thread's node, one
#                     thread per node, in place of the directive), interleave
#                     (numactl --interleave=all), ideal (parallel
#                     initialisation), REPS repetitions, interleaved;
#   solvers-main-4n   4 nodes, 4 threads: none, nexttouch, oracle, ideal,
#                     REPS_4N repetitions (4 vCPUs on 2 host cores: the
#                     ratios spread more);
#   solvers-autonuma  2 nodes, numa_balancing 1: autonuma (serial init, no
#                     directive) for AUTONUMA_SECONDS of solver time, with
#                     ideal in the same part as its time reference,
#                     AUTONUMA_REPS repetitions;
#   solvers-sweep-2n, solvers-sweep-4n   OMP_PROC_BIND false, close, spread,
#                     primary x OMP_PLACES cores, numa_domains; nexttouch and
#                     ideal (SWEEP_VARIANTS), smaller problems, one run each
#                     (4 vCPUs on 2 host cores: placement only).
#
#   bench/solvers.sh [run | parts DIR | report DIR]    (bench/lib.sh)
#   bench/solvers.sh profile   where nexttouch's one-time overhead goes: in
#                   one 2-node guest, REPS times, nexttouch with the default
#                   settings, a fixed window of 64 and of 512 pages
#                   (KMP_NEXTTOUCH_WINDOW), KMP_NEXTTOUCH_MECHANISM=
#                   move_pages and KMP_TOPOLOGY_METHOD=hwloc (libomp loads
#                   hwloc's topology at its start, not the engine at its
#                   first request), beside the oracle, none and ideal; the
#                   engine's faults, timers, start-up and TLB shoot-downs
#                   per setting (build/bench/solvers-profile);
#                   PROFILE_SETTINGS="VAR=VALUE ..." profiles these settings
#                   instead (one VAR=VALUE per run of nexttouch)
#   REPS=3 REPS_4N=$REPS AUTONUMA_SECONDS=20 AUTONUMA_REPS=3     (defaults)
#   JACOBI_ARGS="1022 60" CG_ARGS="100000 60"      N per side, sweeps; rows,
#                                                  iterations (36 per solve)
#   JACOBI_4N_ARGS=$JACOBI_ARGS CG_4N_ARGS=$CG_ARGS  (main-4n)
#   JACOBI_SWEEP_ARGS="510 10" CG_SWEEP_ARGS="30000 40"
#   PARTS="main autonuma sweep-2n sweep-4n main-4n"   some parts only; SWEEP=0:
#                                                  no sweep
#
# Results (report): $DIR/solvers/solvers-{runs,iter,arrays}.csv,
# solvers-summary.txt (printed) and the plots solvers-*.png. Fails if a run
# fails its verification or its exit status.
FAMILY=solvers
. "$(dirname "$0")/lib.sh"
reps=${REPS:-3}
reps_4n=${REPS_4N:-$reps}
an_secs=${AUTONUMA_SECONDS:-20}
an_reps=${AUTONUMA_REPS:-3}
sel=${PARTS:-main autonuma sweep-2n sweep-4n main-4n}
[ "${SWEEP:-1}" = 0 ] && sel=${sel//sweep-2n/} && sel=${sel//sweep-4n/}
jacobi_args=${JACOBI_ARGS:-1022 60}
cg_args=${CG_ARGS:-100000 60}
jacobi_4n_args=${JACOBI_4N_ARGS:-$jacobi_args}
cg_4n_args=${CG_4N_ARGS:-$cg_args}
jacobi_sweep_args=${JACOBI_SWEEP_ARGS:-510 10}
cg_sweep_args=${CG_SWEEP_ARGS:-30000 40}
cg_cache=--matrix-cache=/tmp/cg3d-matrix

build() {
  compile jacobi "$TOP/bench/apps/jacobi.c"
  compile cg3d "$TOP/bench/apps/cg3d.c"
  # numactl for the interleave variant, copied into the guest.
  command -v numactl >>"$DIR/parts/files"
  guest_lib >"$DIR/bin/guest-lib.sh"
}

# The guest's side: `run VARIANT PROG ARGS...` runs one program between
# markers (NT_RUN, NT_EXIT; NT_TLB: the TLB shoot-downs the guest took while
# it ran; /proc/vmstat's numa_* counters around the
# autonuma runs). REP and the OMP_* variables come from the part.
guest_lib() {
  cat <<'EOF'
echo "NT_GUEST kernel=$(uname -r) numa_balancing=$(cat /proc/sys/kernel/numa_balancing)" \
  "thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)" \
  "cpus=$(grep -c ^processor /proc/cpuinfo)" \
  "mem_kib=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
# The kernel's NUMA balancing parameters (debugfs in Linux 6.1).
autonuma_params() {
  mount -t debugfs none /sys/kernel/debug 2>/dev/null
  d=/sys/kernel/debug/sched/numa_balancing
  echo "NT_AUTONUMA_PARAMS $(for f in $d/*; do printf '%s=%s ' "${f##*/}" "$(cat "$f")"; done)"
}
vmstat() { echo "NT_VMSTAT when=$1 $(grep '^numa_' /proc/vmstat | tr ' \n' '= ')"; }
# TLB shoot-down interrupts received, summed over the CPUs.
tlb() { awk '/TLB shootdowns/{s=0; for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s+=$i; print s}' /proc/interrupts; }
run() {
  v=$1 p=$2
  shift 2
  echo "NT_RUN rep=$REP prog=$p variant=$v bind=$OMP_PROC_BIND places=$OMP_PLACES threads=$OMP_NUM_THREADS setting=${SETTING:-default}"
  [ "$v" = autonuma ] && vmstat before
  t0=$(tlb)
  if [ "$v" = interleave ]; then
    numactl --interleave=all ./"$p" --variant="$v" "$@"
  else
    ./"$p" --variant="$v" "$@"
  fi
  rc=$?
  echo "NT_TLB prog=$p variant=$v shootdowns=$(($(tlb) - ${t0:-0}))"
  echo "NT_EXIT prog=$p variant=$v rep=$REP rc=$rc"
  [ "$v" = autonuma ] && vmstat after
  true
}
EOF
}

# prelude NAME NODES BALANCING: the start of a part.
prelude() {
  echo "echo NT_BOOT boot=$1 nodes=$2 cpus=$2 numa_balancing=$3 thp=${THP:-madvise}"
  [ "$3" = 1 ] && echo "echo 1 > /proc/sys/kernel/numa_balancing"
  echo "cd $DIR/bin && . ./guest-lib.sh"
}

# part_main NODES: one thread per node; on 4 nodes without interleave.
part_main() {
  local n=$1 r v name=main reps_n=$reps last="interleave ideal"
  local ja=$jacobi_args ca=$cg_args
  [ "$n" = 2 ] || name=main-${n}n reps_n=$reps_4n last=ideal ja=$jacobi_4n_args ca=$cg_4n_args
  prelude "$name" "$n" 0
  # NT_APP_WARM=1: nexttouch's engine start-up (the process's first request)
  # is measured apart, before the clock (ntapp.h), and added back by the
  # report: the one-time overhead with and without it.
  echo "export OMP_NUM_THREADS=$n $OMP_SPREAD NT_APP_WARM=1"
  for r in $(seq 1 "$reps_n"); do
    echo "REP=$r"
    # nexttouch and the oracle, whose ratio is a target, in alternating
    # order: what one run leaves behind for the next falls on both alike.
    local order="none nexttouch oracle $last"
    [ $((r % 2)) = 0 ] && order="none oracle nexttouch $last"
    for v in $order; do
      echo "run $v jacobi $ja; run $v cg3d $cg_cache $ca"
    done
  done
}

part_autonuma() {
  local r
  prelude autonuma 2 1
  echo "export OMP_NUM_THREADS=2 $OMP_SPREAD; autonuma_params"
  for r in $(seq 1 "$an_reps"); do
    echo "REP=$r; run ideal jacobi $jacobi_args; run autonuma jacobi --seconds=$an_secs $jacobi_args"
    echo "run ideal cg3d $cg_cache $cg_args; run autonuma cg3d $cg_cache --seconds=$an_secs $cg_args"
  done
}

part_sweep() {
  local n=$1 bind places v
  prelude "sweep-${n}n" "$n" 0
  echo "export OMP_NUM_THREADS=$n; REP=1"
  for bind in false close spread primary; do
    for places in cores numa_domains; do
      echo "export OMP_PROC_BIND=$bind OMP_PLACES=$places"
      for v in ${SWEEP_VARIANTS:-nexttouch ideal}; do
        echo "run $v jacobi $jacobi_sweep_args; run $v cg3d $cg_cache $cg_sweep_args"
      done
    done
  done
}

parts() {
  local p
  param "parts: $sel; jacobi $jacobi_args, cg3d $cg_args, $reps repetitions" \
    "(4 nodes: jacobi $jacobi_4n_args, cg3d $cg_4n_args, $reps_4n);" \
    "autonuma $an_reps x $an_secs s; sweep jacobi $jacobi_sweep_args, cg3d $cg_sweep_args"
  for p in $sel; do
    case $p in
    main) part_main 2 | part solvers-main 2 ;;
    main-4n) part_main 4 | part solvers-main-4n 4 ;;
    autonuma) part_autonuma | part solvers-autonuma 2 ;;
    sweep-2n) part_sweep 2 | part solvers-sweep-2n 2 ;;
    sweep-4n) part_sweep 4 | part solvers-sweep-4n 4 ;;
    *) die "unknown part '$p'" ;;
    esac
  done
}

report() { $PY "$REPORT" solvers "$DIR"; }

# The profile: the engine's settings that change its number of faults.
profile() {
  local d=$TOP/build/bench/solvers-profile r s
  local settings=${PROFILE_SETTINGS:-KMP_NEXTTOUCH_WINDOW=adaptive \
    KMP_NEXTTOUCH_WINDOW=64 KMP_NEXTTOUCH_WINDOW=512 \
    KMP_NEXTTOUCH_MECHANISM=move_pages KMP_TOPOLOGY_METHOD=hwloc}
  for s in $settings; do
    case $s in [A-Z]*=*) ;; *) die "PROFILE_SETTINGS: '$s' is not VAR=VALUE" ;; esac
  done
  rm -rf "$d"
  setup_dir "$d"
  build
  param "profile: jacobi $jacobi_args, cg3d $cg_args, $reps repetitions"
  {
    prelude profile 2 0
    local base="OMP_NUM_THREADS=2 $OMP_SPREAD NT_APP_WARM=1"
    echo "export $base"
    for r in $(seq 1 "$reps"); do
      echo "REP=$r"
      for s in $settings; do
        echo "export SETTING=$s $s"
        echo "run nexttouch jacobi $jacobi_args; run nexttouch cg3d $cg_cache $cg_args"
        # A setting of one of the base variables (NT_APP_WARM=0) ends here too.
        echo "unset SETTING ${s%%=*}; export $base"
      done
      for s in oracle none ideal; do
        echo "run $s jacobi $jacobi_args; run $s cg3d $cg_cache $cg_args"
      done
    done
  } | part solvers-profile 2
  local rc=0
  guests || rc=1
  $PY "$REPORT" solvers-profile "$d" || rc=1
  return $rc
}

case ${1:-run} in
profile) profile ;;
*) driver_main "$@" ;;
esac
