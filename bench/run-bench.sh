#!/usr/bin/env bash
# The distribution benchmark, all variants, in one command (make bench).
#
#   1. native, on this host (one NUMA node, KMP_NEXTTOUCH_FORCE=1 arms
#      anyway): nothing moves, so each variant's time minus the no-migration
#      loop is the cost of the fault path (fault + protection changes);
#   2. emulated, in one numa-vm guest (QEMU/TCG, 2 nodes x 1 GiB, 2 vCPUs,
#      2 threads): the array starts on node 0 and every variant moves half of
#      it. First BENCH_PAIRS pairs of ours-default and oracle, back to back,
#      in alternating order (ours oracle, oracle ours, ...): the ours/oracle
#      figure is the median of the pairs' ratios; then every variant and the
#      reference BENCH_REPS times, at BENCH_REF_MIB, repetitions interleaved
#      (every variant once, forwards, then backwards, ...).
#
# Writes bench/results/nexttouch_dist.csv (rows + the configuration as '#'
# lines), nexttouch_dist-phases.csv (time of the fork, of each thread's loop,
# of the join), nexttouch_dist.png and nexttouch_dist-summary.txt (medians,
# ratios, per-page costs), and prints the summary.
#
#   bench/run-bench.sh                 BENCH_MIB=256 BENCH_PAIRS=20
#                                      BENCH_REPS=3 (defaults)
#   BENCH_MIB=512 bench/run-bench.sh   the largest array that fits (slower)
#   BENCH_MIB=128 bench/run-bench.sh   a quicker look
#   BENCH_REF_MIB=32                   the all-variants part (with the
#                                      reference and the exact mode, one
#                                      fault per page) on a smaller array
#                                      (default BENCH_MIB); its ours-default
#                                      runs give reference/ours
#   BENCH_HOST=0                       no native part
#   BENCH_OUT=dir                      write the results elsewhere
#   LIBOMP_DIR=dir                     link and run against dir/libomp.so
#   NUMA_VM=path                       another numa-vm (bench/suite.sh's)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mib=${BENCH_MIB:-256}
pairs=${BENCH_PAIRS:-20}
ref_mib=${BENCH_REF_MIB:-$mib}
reps=${BENCH_REPS:-3}
run_host=${BENCH_HOST:-1}
numavm=${NUMA_VM:-$top/tools/numa-vm/numa-vm}
host_mib=${BENCH_HOST_MIB:-64}
out=${BENCH_OUT:-$top/bench/results}
bin=$top/build/bench
clang=$top/build/bin/clang
variants=ours-default,ours-exact,ours-thp,oracle,none
step() { echo "== bench: $*"; }

[ -x "$clang" ] || { echo "bench: no $clang: run make first" >&2; exit 1; }
# Debian's python3 (a python3 earlier in PATH, e.g. pyenv, lacks Debian's modules)
py=/usr/bin/python3
if ! $py -c 'import matplotlib' 2>/dev/null; then
  step "installing python3-matplotlib (Debian) for the plot"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-matplotlib
fi

step "compiling bench/nexttouch_dist.c and bench/reference_nexttouch.c (build/bin/clang -fopenmp -O2)"
mkdir -p "$bin" "$out"
ldflags=()
libomp=$top/build/openmp/runtime/src/libomp.so
if [ -n "${LIBOMP_DIR:-}" ]; then
  libdir=$(cd "$LIBOMP_DIR" && pwd)
  ldflags=(-L"$libdir" -Wl,-rpath,"$libdir")
  libomp=$libdir/libomp.so
fi
for p in nexttouch_dist reference_nexttouch; do
  "$clang" -fopenmp -O2 -Wall "$top/bench/$p.c" "${ldflags[@]}" -lnuma -o "$bin/$p"
done

# The libomp the runs use (a rebuild during the run is reported below).
libomp_id="libomp.so sha1 $(sha1sum "$libomp" | cut -c1-12) built $(date -u -r "$libomp" +%Y-%m-%dT%H:%MZ)"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
omp_env=(OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores)

[ "$run_host" = 1 ] &&
  step "1/2 native on this host: ${host_mib} MiB, fault path forced on one node, $reps repetitions"
for r in $(seq 1 "$reps"); do
  [ "$run_host" = 1 ] || break
  env "${omp_env[@]}" BENCH_WHERE=host-native BENCH_REP_OFFSET=$((r - 1)) \
    KMP_NEXTTOUCH_FORCE=1 "$bin/nexttouch_dist" "$host_mib" 1 "$variants" | tee -a "$raw" | { grep '^csv,[^w]' || true; }
  env "${omp_env[@]}" BENCH_WHERE=host-native BENCH_REP_OFFSET=$((r - 1)) \
    "$bin/reference_nexttouch" "$host_mib" 1 | tee -a "$raw" | { grep '^csv,[^w]' || true; }
  env "${omp_env[@]}" BENCH_WHERE=host-native BENCH_REP_OFFSET=$((r - 1)) \
    "$bin/reference_nexttouch" "$host_mib" 1 nomove | tee -a "$raw" | { grep '^csv,[^w]' || true; }
done

guest_mem=1024
# The pairs (repetitions 1..pairs), then every variant (pairs+1 ...); the
# reference runs between the forward and the backward pass of the others.
guest_cmd=""
[ "$pairs" -gt 0 ] && guest_cmd+="$bin/nexttouch_dist $mib $pairs ours-default,oracle; "
for r in $(seq 1 "$reps"); do
  guest_cmd+="BENCH_REP_OFFSET=$((pairs + r - 1)) $bin/nexttouch_dist $ref_mib 1 $variants; "
  guest_cmd+="BENCH_REP_OFFSET=$((pairs + r - 1)) $bin/reference_nexttouch $ref_mib 1; "
  variants=$(echo "$variants" | tr , '\n' | tac | paste -sd,)
done
step "2/2 emulated: one 2-node guest (2 vCPUs, ${guest_mem} MiB per node): $pairs pairs ours/oracle at ${mib} MiB," \
  "every variant $reps times at ${ref_mib} MiB"
step "    (about 3-10 minutes: TCG emulates every page fault and TLB flush; rows appear as they finish)"
t0=$(date +%s)
"$numavm" --nodes 2 --cpus 2 --mem "$guest_mem" --numa-balancing 0 \
  --kernel-arg transparent_hugepage=madvise --timeout 3600 \
  --file "$bin/nexttouch_dist" --file "$bin/reference_nexttouch" -- \
  env "${omp_env[@]}" BENCH_WHERE=guest-tcg sh -c "$guest_cmd uname -r | sed 's/^/guest-kernel,/'" \
  | tee -a "$raw" | { grep --line-buffered '^csv,[^w]' || true; }
t1=$(date +%s)

csv=$out/nexttouch_dist.csv
{
  echo "# nexttouch distribution benchmark (bench/run-bench.sh), $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "# commit: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" \
       "$libomp_id$(now_id="libomp.so sha1 $(sha1sum "$libomp" | cut -c1-12) built $(date -u -r "$libomp" +%Y-%m-%dT%H:%MZ)"
         [ "$now_id" = "$libomp_id" ] || echo " (REBUILT during the run: now $now_id)")"
  echo "# host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores," \
       "$(free -g | awk '/Mem:/{print $2}') GiB, kernel $(uname -r), THP $(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)," \
       "load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  [ "$run_host" = 1 ] && echo "# host-native rows: ${host_mib} MiB, 1 NUMA node, KMP_NEXTTOUCH_FORCE=1 for the ours-* rows (nothing moves), ${omp_env[*]}"
  echo "# guest-tcg rows: numa-vm (QEMU $(qemu-system-x86_64 --version | head -1 | awk '{print $4}') TCG), 2 nodes x ${guest_mem} MiB, 2 vCPUs," \
       "kernel $(grep -m1 '^guest-kernel,' "$raw" | cut -d, -f2), numa_balancing=0, transparent_hugepage=madvise," \
       "$pairs pairs ours-default/oracle at ${mib} MiB (alternating order), every variant $reps times at ${ref_mib} MiB," \
       "${omp_env[*]}, guest run $([ "${SUITE_VM_MODE:-}" = replay ] &&
         echo "in bench/suite.sh's boot (its times.txt)" || echo "$((t1 - t0)) s wall")"
  echo "# times are of request + one pass of the loop; guest times are emulated (compare within a run, as ratios)"
  grep -m1 '^csv,where' "$raw" | cut -d, -f2-
  grep '^csv,' "$raw" | grep -v '^csv,where' | cut -d, -f2-
} > "$csv"
# Phases per run (prof_row in bench_common.h): fork (arming), each thread's
# loop (its faults), join (disarming).
grep '^prof,' "$raw" | cut -d, -f2- > "$out/nexttouch_dist-phases.csv"
step "results: $csv, $out/nexttouch_dist-phases.csv"
$py "$top/bench/report.py" "$csv" "$out/nexttouch_dist.png" | tee "$out/nexttouch_dist-summary.txt"
