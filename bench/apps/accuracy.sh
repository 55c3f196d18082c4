#!/usr/bin/env bash
# Placement accuracy of next-touch per access pattern (bench/apps/accuracy.c):
# builds it with build/bin/clang, runs it in one 2-node and one 4-node
# numa-vm guest, once with the default settings (adaptive batch window) and
# once with KMP_NEXTTOUCH_WINDOW=1 (exact) in the same boot, and prints a
# table: pattern, window, % of pages on their first toucher's node, the same
# before the request, faults per page, pages per batch, target met.
#
#   bench/apps/accuracy.sh                  everything (make bench-accuracy)
#   NODES=2 MIB=32 bench/apps/accuracy.sh
#   PATTERNS=block,cyclic1 bench/apps/accuracy.sh
#   LIBOMP_DIR=dir bench/apps/accuracy.sh   link and run against the
#                                           libomp.so in dir instead of the
#                                           toolchain's
#   MAP=0 bench/apps/accuracy.sh            no NT_ACC_MAP lines (default: the
#                                           first 128 pages of each pattern)
#   THP=always bench/apps/accuracy.sh       guest THP mode (default madvise;
#                                           the array is MADV_NOHUGEPAGE anyway)
#   WINDOWS=default bench/apps/accuracy.sh  the default window only (default:
#                                           "default exact")
#   OUT=dir bench/apps/accuracy.sh          binaries, logs and table there
#                                           (default build/bench-apps)
#
# Guests: N nodes with N vCPUs (1 GiB per node), one thread per vCPU,
# OMP_PROC_BIND=spread OMP_PLACES=cores, numa_balancing 0. Exits non-zero if
# a guest fails or a pattern's data check fails; a missed target only shows
# in the table. Logs: OUT/logs/accuracy-<N>n.log, table:
# OUT/accuracy-table.txt.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$top/build/bench-apps}
windows=${WINDOWS:-default exact}
cc=${CC_NT:-$top/build/bin/clang}
nodes_list=${NODES:-2 4}
mib=${MIB:-64}
patterns=${PATTERNS:-}
map=${MAP:-128}
thp=${THP:-madvise}
numavm=${NUMA_VM:-$top/tools/numa-vm/numa-vm}

[ -x "$cc" ] || { echo "accuracy.sh: $cc not found: run make first" >&2; exit 2; }
mkdir -p "$out/logs"
# One libomp for every guest of the run: a copy of the toolchain's (or of
# LIBOMP_DIR's), which a rebuild during the run does not change.
src_lib=${LIBOMP_DIR:+$LIBOMP_DIR/libomp.so}
src_lib=$(readlink -f "${src_lib:-$top/build/openmp/runtime/src/libomp.so}")
libdir=$out/accuracy-lib
mkdir -p "$libdir"
cp "$src_lib" "$libdir/libomp.so" ||
  { echo "accuracy.sh: cannot copy $src_lib" >&2; exit 2; }
ldflags=(-L"$libdir" -Wl,-rpath,"$libdir")

"$cc" -fopenmp -O2 -Wall -Wextra "$top/bench/apps/accuracy.c" "${ldflags[@]}" \
  -lnuma -o "$out/accuracy" ||
  { echo "accuracy.sh: building accuracy failed" >&2; exit 2; }
used=$(ldd "$out/accuracy" | awk '/libomp/ { print $3 }')
[ "$(readlink -f "$used")" = "$libdir/libomp.so" ] ||
  { echo "accuracy.sh: the binary uses $used, not the copy" >&2; exit 2; }
ident="commit=$(git -C "$top" log -1 --format=%h 2>/dev/null || echo -)"
# Uncommitted changes to the toolchain's sources when the run starts: the
# libomp may have been built from them, not from the commit.
if git -C "$top" status --porcelain -- openmp clang llvm patches 2>/dev/null |
  grep -q .; then ident+=" worktree=modified"; else ident+=" worktree=clean"; fi
ident+=" libomp=$src_lib"
ident+=" libomp_mtime=$(date -u -r "$src_lib" +%Y-%m-%dT%H:%M:%SZ)"
ident+=" libomp_sha1=$(sha1sum "$libdir/libomp.so" | cut -c1-12)"
echo "accuracy.sh: $ident" >&2

args="--mib $mib --map $map"
[ -n "$patterns" ] && args+=" --patterns $patterns"
status=0
for nodes in $nodes_list; do
  cpus=$nodes
  log=$out/logs/accuracy-${nodes}n.log
  script="cd $out; export OMP_NUM_THREADS=$cpus OMP_PROC_BIND=spread OMP_PLACES=cores;"
  for w in $windows; do
    case $w in
    default) script+=" ./accuracy $args; echo NT_EXIT window=default rc=\$?;" ;;
    exact) script+=" KMP_NEXTTOUCH_WINDOW=1 ./accuracy $args; echo NT_EXIT window=exact rc=\$?;" ;;
    *) echo "accuracy.sh: unknown window '$w'" >&2; exit 2 ;;
    esac
  done
  echo "accuracy.sh: $nodes nodes, $cpus vCPUs, $mib MiB ..." >&2
  start=$(date +%s)
  {
    echo "NT_ACC_RUN $ident date=$(date -u +%Y-%m-%dT%H:%M:%SZ) mib=$mib"
    "$numavm" --nodes "$nodes" --cpus "$cpus" --mem 1024 --numa-balancing 0 \
      --kernel-arg "transparent_hugepage=$thp" --timeout 1200 \
      --file "$out/accuracy" --file "$libdir/libomp.so" -- sh -c "$script" 2>&1
  } >"$log"
  rc=$?
  echo "accuracy.sh: $nodes nodes: guest took $(($(date +%s) - start)) s" >&2
  if [ $rc -ne 0 ]; then
    echo "accuracy.sh: guest ($nodes nodes) exited $rc, see $log" >&2
    status=1
  fi
  for w in $windows; do
    grep -q "^NT_EXIT window=$w rc=0$" "$log" || {
      echo "accuracy.sh: $nodes nodes, window $w: failed, see $log" >&2
      status=1
    }
  done
  if grep -q "check=FAILED" "$log"; then
    echo "accuracy.sh: $nodes nodes: a data check failed, see $log" >&2
    status=1
  fi
done

table() {
  for nodes in $nodes_list; do
    cat "$out/logs/accuracy-${nodes}n.log" 2>/dev/null
  done | awk '
    function kv(   i, f) { delete F; for (i = 2; i <= NF; i++) {
        split($i, f, "="); F[f[1]] = substr($i, length(f[1]) + 2) } }
    /^NT_ACC_RUN / && !hdr { hdr = $0; sub(/^NT_ACC_RUN /, "", hdr) }
    /^NT_ACC / { kv(); k = F["nodes"] SUBSEP F["pattern"]
      if (!(k in seen)) { seen[k] = 1; K[++nk] = k }
      R[k, F["window"]] = sprintf(fmt, F["nodes"], F["pattern"], F["window"], F["pct_local"], F["pre_pct_local"], F["faults_per_page"], F["pages_per_batch"], F["misplaced_by_thread"], F["target"], F["target_met"], F["check"]) }
    BEGIN { fmt = "| %5s | %-10s | %-7s | %7s | %6s | %11s | %11s | %-16s | %6s | %3s | %-6s |\n" }
    END {
      printf fmt, "nodes", "pattern", "window", "%local", "%pre", "faults/page", "pages/batch", "misplaced/thread", "target", "met", "check"
      printf fmt, "-----", "----------", "-------", "-------", "------", "-----------", "-----------", "----------------", "------", "---", "------"
      for (i = 1; i <= nk; i++)
        for (w = 1; w <= 2; w++) { kk = K[i] SUBSEP (w == 1 ? "default" : "exact"); if (kk in R) printf "%s", R[kk] }
      if (hdr != "") print "\n" hdr }'
}
table | tee "$out/accuracy-table.txt"
[ $status -eq 0 ] && echo "accuracy.sh: all data checks passed" ||
  echo "accuracy.sh: FAILED (see above)"
exit $status
