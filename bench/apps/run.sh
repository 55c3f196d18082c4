#!/usr/bin/env bash
# Build the bench/apps programs with build/bin/clang and run each in the
# 2-node and the 4-node numa-vm guest, with and without '#pragma omp
# nexttouch' (--baseline), both variants in the same boot; then print a table.
# Exits non-zero if a program fails its verification or does not report.
#
#   bench/apps/run.sh                       everything (make bench-apps)
#   NODES="2" PROGS="stream cg" bench/apps/run.sh
#   THP=always bench/apps/run.sh            guest THP mode (default madvise:
#                                           4 KiB pages, so that faults/page
#                                           shows the batch window)
#   LIBOMP_DIR=dir bench/apps/run.sh        link and run against the libomp.so
#                                           in dir (e.g. a saved copy) instead
#                                           of the toolchain's
#
# Guests: 2 nodes with 2 vCPUs, 4 nodes with 4 vCPUs (1 GiB per node), one
# thread per vCPU, OMP_PROC_BIND=spread OMP_PLACES=cores, numa_balancing 0.
# The host has 2 cores: times from the 4-vCPU guest are not meaningful, and
# TCG times are emulated anyway; the table shows only the ratio of the two
# variants' times within one boot. Logs: build/bench-apps/logs/.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/bench/apps
out=$top/build/bench-apps
cc=${CC_NT:-$top/build/bin/clang}
nodes_list=${NODES:-2 4}
progs=${PROGS:-stream jacobi cg mesh batchwin}
thp=${THP:-madvise}
numavm=${NUMA_VM:-$top/tools/numa-vm/numa-vm}  # NUMA_VM: for testing run.sh
ldflags=()
if [ -n "${LIBOMP_DIR:-}" ]; then
  libdir=$(cd "$LIBOMP_DIR" && pwd)
  ldflags=(-L"$libdir" -Wl,-rpath,"$libdir")
fi

[ -x "$cc" ] || { echo "run.sh: $cc not found: run make first" >&2; exit 2; }
mkdir -p "$out/logs"
for p in $progs; do
  "$cc" -fopenmp -O2 -Wall -Wextra "$src/$p.c" "${ldflags[@]}" -lnuma -lm \
    -o "$out/$p" ||
    { echo "run.sh: building $p failed" >&2; exit 2; }
done

status=0
for nodes in $nodes_list; do
  cpus=$nodes
  for p in $progs; do
    log=$out/logs/$p-${nodes}n.log
    variants="nexttouch baseline"
    [ "$p" = batchwin ] && variants="nexttouch"
    script="cd $out; export OMP_NUM_THREADS=$cpus OMP_PROC_BIND=spread OMP_PLACES=cores;"
    for v in $variants; do
      flag=; [ "$v" = baseline ] && flag=--baseline
      script+=" ./$p $flag; echo NT_EXIT prog=$p variant=$v rc=\$?;"
    done
    echo "run.sh: $p, $nodes nodes, $cpus vCPUs ..." >&2
    "$numavm" --nodes "$nodes" --cpus "$cpus" --mem 1024 --numa-balancing 0 \
      --kernel-arg "transparent_hugepage=$thp" --timeout 1200 \
      --file "$out/$p" -- sh -c "$script" >"$log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
      echo "run.sh: guest for $p ($nodes nodes) exited $rc, see $log" >&2
      status=1
    fi
    if grep -q "result=FAILED" "$log"; then
      echo "run.sh: $p ($nodes nodes) failed its verification, see $log" >&2
      status=1
    fi
    for v in $variants; do
      grep -q "^NT_EXIT prog=$p variant=$v rc=0$" "$log" || {
        echo "run.sh: $p ($nodes nodes, $v) failed, see $log" >&2
        status=1
      }
    done
  done
done

# The table, from the logs: one row per program, node count and variant.
# split: smallest and largest share of one node over the arrays of at least
# 128 pages (ideal 1/nodes both); balanced: how many of those arrays have at
# least 0.9/nodes of their pages on every node; owner: pages on the node of
# the thread that uses them (static schedule); time: this variant / baseline,
# same boot.
table() {
  for nodes in $nodes_list; do
    for p in $progs; do
      cat "$out/logs/$p-${nodes}n.log" 2>/dev/null
    done
  done | awk '
    function kv(   i, f) { delete F; for (i = 2; i <= NF; i++) {
        split($i, f, "="); v = substr($i, length(f[1]) + 2); F[f[1]] = v ~ /^[-+.0-9e]+$/ && v != "-" ? v + 0 : v } }
    function pct(x) { return x == "-" || x == "" ? "-" : sprintf("%.1f", 100 * x) }
    /^NT_ARRAY / { kv(); k = F["prog"] SUBSEP F["variant"]; F["nodes"] = nodes
      if (F["pages"] >= 128) {
        if (!(k in mn) || F["min_share"] < mn[k]) mn[k] = F["min_share"]
        if (!(k in mx) || F["max_share"] > mx[k]) mx[k] = F["max_share"]
        nl[k]++; if (F["min_share"] * F["nodes"] >= 0.9) nbal[k]++ } }
    /^NT_INFO / { kv(); nodes = F["nodes"] }
    /^NT_SUMMARY / { kv(); k = F["prog"] SUBSEP F["variant"]
      n++; P[n] = F["prog"]; N[n] = F["nodes"]; V[n] = F["variant"]
      H[n] = pct(F["handled"]); O[n] = pct(F["owner_local"])
      FP[n] = F["faults_per_page"] == "-" ? "-" : sprintf("%.3f", F["faults_per_page"])
      S[n] = (k in mn) ? sprintf("%.2f/%.2f", mn[k], mx[k]) : "-"
      BL[n] = (k in nl) ? sprintf("%d/%d", nbal[k], nl[k]) : "-"
      T[n] = F["time_ms"]; R[n] = F["result"]
      delete mn[k]; delete mx[k]; delete nl[k]; delete nbal[k]
      if (F["variant"] == "baseline") base[F["prog"], F["nodes"]] = F["time_ms"] }
    /^NT_BATCH / { kv(); B[++nb] = sprintf("batchwin (%s nodes): faults/page single %s, interleaved %s, ratio %s (target <= 2: %s)", N[n], F["single_fpp"], F["interleaved_fpp"], F["ratio"], F["target_met"]) }
    END {
      fmt = "| %-20s | %5s | %-9s | %8s | %-9s | %8s | %6s | %11s | %9s | %-8s |\n"
      printf fmt, "program", "nodes", "variant", "%handled", "split", "balanced", "%owner", "faults/page", "time/base", "result"
      printf fmt, "--------------------", "-----", "---------", "--------", "---------", "--------", "------", "-----------", "---------", "--------"
      for (i = 1; i <= n; i++) {
        b = base[P[i], N[i]]
        r = (b > 0) ? sprintf("%.2f", T[i] / b) : "-"
        printf fmt, P[i], N[i], V[i], H[i], S[i], BL[i], O[i], FP[i], r, R[i] }
      for (i = 1; i <= nb; i++) print "\n" B[i] }'
}
table | tee "$out/table.txt"
[ $status -eq 0 ] && echo "run.sh: all programs verified" ||
  echo "run.sh: FAILED (see above)"
exit $status
