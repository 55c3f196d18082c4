#!/usr/bin/env bash
# Jacobi and CG with serial initialisation: next-touch against the
# alternatives (make bench-solvers; docs/Benchmarks.rst, "Jacobi and CG:
# next-touch against the alternatives"). Four guest boots:
#
#   1. main      2 nodes, 2 vCPUs, numa_balancing 0: jacobi and cg3d, variants
#                none, nexttouch, interleave (numactl --interleave=all),
#                ideal (parallel initialisation), REPS repetitions
#                interleaved (every variant once, then again);
#   2. autonuma  2 nodes, 2 vCPUs, numa_balancing 1 (a second boot, for this
#                variant only): autonuma (serial initialisation, no
#                directive) for AUTONUMA_SECONDS (20) of solver time, with
#                the ideal variant in the same boot as its time reference,
#                AUTONUMA_REPS (3) repetitions;
#   3. sweep-2n  2 nodes, 2 vCPUs and
#   4. sweep-4n  4 nodes, 4 vCPUs (more vCPUs than host cores: placement
#                only, its times mean nothing): OMP_PROC_BIND false, close,
#                spread, primary x OMP_PLACES cores, numa_domains, variants
#                nexttouch and ideal (SWEEP_VARIANTS), smaller problems, one
#                run each.
#
# Every boot: 1 GiB per node (512 MiB with 4 nodes), THP madvise (4 KiB
# pages), one thread per vCPU; boots 1 and 2 use OMP_PROC_BIND=spread
# OMP_PLACES=cores. Then solvers_report.py writes the CSVs and the summary
# to OUT and the plots to PLOTS, and prints the summary. Exits non-zero if a
# run fails (its verification or its exit status).
#
#   bench/apps/solvers.sh                 everything (~10 min on a quiet host)
#   REPS=1 AUTONUMA_SECONDS=10 SWEEP=0 bench/apps/solvers.sh   a quick look
#   BOOTS="main autonuma" bench/apps/solvers.sh   some boots only (the report
#                                         uses the logs of the others as left)
#   CC_NT=/path/to/clang                  the compiler (default build/bin/clang)
#   LIBOMP_DIR=dir                        link and run against dir/libomp.so
#   OUT=dir PLOTS=dir                     default bench/apps/results/solvers
#                                         and docs/images
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/bench/apps
work=$top/build/bench-solvers
out=${OUT:-$top/bench/apps/results/solvers}
plots=${PLOTS:-$top/docs/images}
logs=$out/logs
cc=${CC_NT:-$top/build/bin/clang}
reps=${REPS:-3}
an_secs=${AUTONUMA_SECONDS:-20}
an_reps=${AUTONUMA_REPS:-3}
boots=${BOOTS:-main autonuma sweep-2n sweep-4n}
[ "${SWEEP:-1}" = 0 ] && boots=${boots//sweep-2n/} && boots=${boots//sweep-4n/}
jacobi_args=${JACOBI_ARGS:-1022 60}   # N (interior points per side), sweeps
cg_args=${CG_ARGS:-100000 60}         # points, iterations (36 per solve)
jacobi_sweep_args=${JACOBI_SWEEP_ARGS:-510 10}
cg_sweep_args=${CG_SWEEP_ARGS:-30000 40}
numavm=${NUMA_VM:-$top/tools/numa-vm/numa-vm}
ldflags=()
if [ -n "${LIBOMP_DIR:-}" ]; then
  libdir=$(cd "$LIBOMP_DIR" && pwd)
  ldflags=(-L"$libdir" -Wl,-rpath,"$libdir")
fi
step() { echo "== bench-solvers: $*" >&2; }

[ -x "$cc" ] || { echo "solvers.sh: $cc not found: run make first" >&2; exit 2; }
# Debian's python3 and matplotlib for the report; numactl for the interleave
# variant (its binary is copied into the guests).
py=/usr/bin/python3
need=()
$py -c 'import matplotlib' 2>/dev/null || need+=(python3-matplotlib)
command -v numactl >/dev/null || need+=(numactl)
if [ ${#need[@]} -gt 0 ]; then
  step "installing ${need[*]} (Debian)"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${need[@]}" || exit 2
fi
numactl=$(command -v numactl)

mkdir -p "$work" "$logs" "$plots"
step "compiling jacobi.c and cg3d.c ($cc -fopenmp -O2)"
for p in jacobi cg3d; do
  "$cc" -fopenmp -O2 -Wall -Wextra "$src/$p.c" "${ldflags[@]}" -lnuma -lm \
    -o "$work/$p" || { echo "solvers.sh: building $p failed" >&2; exit 2; }
done
libomp=$(ldd "$work/jacobi" | awk '/libomp/ { print $3 }')

# The configuration, for the CSV headers.
{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null)$(git -C "$top" diff --quiet HEAD -- bench/apps 2>/dev/null || echo +modified)"
  echo "compiler=$cc ($("$cc" --version | head -1))"
  echo "libomp=$libomp sha1=$(sha1sum "$libomp" | cut -c1-12) built=$(date -u -r "$libomp" +%Y-%m-%dT%H:%MZ)"
  echo "host_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "host_cores=$(nproc) host_kernel=$(uname -r) host_load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "qemu=$(qemu-system-x86_64 --version 2>/dev/null | head -1)"
  echo "boots=$(echo $boots | tr ' ' ,) reps=$reps autonuma_seconds=$an_secs autonuma_reps=$an_reps"
  echo "jacobi_args=$jacobi_args cg_args=$cg_args jacobi_sweep_args=$jacobi_sweep_args cg_sweep_args=$cg_sweep_args"
} >"$logs/config.new"
# With BOOTS (some boots again), the report also reads the other boots'
# logs of earlier invocations: keep their configuration ("earlier:").
{ cat "$logs/config.new"; [ -n "${BOOTS:-}" ] && [ -f "$logs/config.txt" ] &&
  grep -v '^#' "$logs/config.txt" | sed 's/^/earlier: /' | grep -v '^earlier: earlier: earlier:'; } \
  >"$logs/config.tmp"
mv "$logs/config.tmp" "$logs/config.txt"
rm -f "$logs/config.new"

# One guest boot: name, nodes, vCPUs, MiB per node, numa_balancing, script.
status=0
boot() {
  local name=$1 nodes=$2 cpus=$3 mem=$4 bal=$5 script=$6 log=$logs/$1.log t0 rc
  step "boot '$name': $nodes nodes, $cpus vCPUs, $mem MiB per node, numa_balancing $bal"
  t0=$(date +%s)
  # no_timer_check: on a loaded host the emulated kernel's check of the
  # IO-APIC timer can fail and panic at boot; a guest that fails to start
  # (numa-vm exits 125) is tried once more.
  for try in 1 2; do
    {
      echo "NT_BOOT boot=$name nodes=$nodes cpus=$cpus mem_mib=$mem numa_balancing=$bal thp=madvise host_load=$(cut -d' ' -f1 /proc/loadavg) try=$try"
      "$numavm" --nodes "$nodes" --cpus "$cpus" --mem "$mem" --numa-balancing "$bal" \
        --kernel-arg transparent_hugepage=madvise --kernel-arg no_timer_check \
        --timeout 2400 \
        --file "$work/jacobi" --file "$work/cg3d" --file "$work/guest-lib.sh" \
        --file "$numactl" -- sh -c "$script"
      rc=$?
      echo "NT_BOOT_END boot=$name rc=$rc wall_s=$(($(date +%s) - t0))"
    } >"$log" 2>&1
    [ "$rc" = 125 ] && ! grep -q '^NT_RUN' "$log" || break
    step "  guest '$name' did not start (numa-vm exit 125), trying again"
  done
  rc=$(sed -n 's/^NT_BOOT_END .* rc=\([0-9]*\).*/\1/p' "$log")
  [ "$rc" = 0 ] || { echo "solvers.sh: guest '$name' exited $rc, see $log" >&2; status=1; }
  if grep -q "result=FAILED" "$log" || grep -q "^NT_EXIT .* rc=[1-9]" "$log"; then
    echo "solvers.sh: a run in '$name' failed, see $log:" >&2
    grep "^NT_EXIT .* rc=[1-9]" "$log" >&2
    status=1
  fi
  step "  done in $(($(date +%s) - t0)) s: $(grep -c '^NT_EXIT .* rc=0' "$log") runs verified"
}

# The guest's side: run VARIANT PROG ARGS... runs one program between
# markers (NT_RUN, NT_EXIT; /proc/vmstat's numa_* counters around the
# autonuma runs). REP and the OMP_* variables come from the boot's script.
cat >"$work/guest-lib.sh" <<'EOF'
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
run() {
  v=$1 p=$2
  shift 2
  echo "NT_RUN rep=$REP prog=$p variant=$v bind=$OMP_PROC_BIND places=$OMP_PLACES threads=$OMP_NUM_THREADS"
  [ "$v" = autonuma ] && vmstat before
  if [ "$v" = interleave ]; then
    numactl --interleave=all ./"$p" --variant="$v" "$@"
  else
    ./"$p" --variant="$v" "$@"
  fi
  echo "NT_EXIT prog=$p variant=$v rep=$REP rc=$?"
  [ "$v" = autonuma ] && vmstat after
  true
}
EOF
guest_prelude="cd $work && . $work/guest-lib.sh;"
cg_cache="--matrix-cache=/tmp/cg3d-matrix"

for b in $boots; do
  case $b in
  main)
    s="$guest_prelude export OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores;"
    for r in $(seq 1 "$reps"); do
      s+=" REP=$r;"
      for v in none nexttouch interleave ideal; do
        s+=" run $v jacobi $jacobi_args; run $v cg3d $cg_cache $cg_args;"
      done
    done
    boot main 2 2 1024 0 "$s"
    ;;
  autonuma)
    s="$guest_prelude export OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores;"
    s+=" autonuma_params;"
    for r in $(seq 1 "$an_reps"); do
      s+=" REP=$r; run ideal jacobi $jacobi_args; run autonuma jacobi --seconds=$an_secs $jacobi_args;"
      s+=" run ideal cg3d $cg_cache $cg_args; run autonuma cg3d $cg_cache --seconds=$an_secs $cg_args;"
    done
    boot autonuma 2 2 1024 1 "$s"
    ;;
  sweep-2n | sweep-4n)
    n=${b#sweep-}; n=${n%n}
    sweep_variants=${SWEEP_VARIANTS:-nexttouch ideal}
    s="$guest_prelude export OMP_NUM_THREADS=$n; REP=1;"
    for bind in false close spread primary; do
      for places in cores numa_domains; do
        s+=" export OMP_PROC_BIND=$bind OMP_PLACES=$places;"
        for v in $sweep_variants; do
          s+=" run $v jacobi $jacobi_sweep_args; run $v cg3d $cg_cache $cg_sweep_args;"
        done
      done
    done
    boot "$b" "$n" "$n" $((n == 2 ? 1024 : 512)) 0 "$s"
    ;;
  *) echo "solvers.sh: unknown boot '$b'" >&2; exit 2 ;;
  esac
done

step "report: $out/solvers-*.csv, solvers-summary.txt; plots in $plots"
$py "$src/solvers_report.py" "$logs" "$out" "$plots" || status=1
[ $status -eq 0 ] && echo "solvers.sh: all runs verified" ||
  echo "solvers.sh: FAILED (see above)"
exit $status
