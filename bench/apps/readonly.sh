#!/usr/bin/env bash
# The readonly benchmark (bench/apps/jacobi_dense.c, after Lankes et al.,
# ROSS'12): builds it with build/bin/clang, runs the four variants (seq,
# nexttouch, readonly, ideal) REPS times each, interleaved, in ONE 4-node
# numa-vm guest and in ONE 2-node guest, and readonly and ideal natively on
# the host (one node, KMP_READONLY_FORCE=true: what making a replica and a
# region with readonly items cost in real time); then writes a CSV and
# prints a table (medians over the repetitions, times as ratios to ideal
# initialisation in the same boot).
#
#   bench/apps/readonly.sh                  everything (make bench-readonly)
#   NODES=4 REPS=3 N=4096 ITERS=6 bench/apps/readonly.sh
#                                           N: rows of A (default 8192: A
#                                           is 512 MiB, half a guest node);
#                                           ITERS: iterations (default 10)
#   HOST=0 bench/apps/readonly.sh           no native run
#   LIBOMP_DIR=dir bench/apps/readonly.sh   link and run against the
#                                           libomp.so in dir (a copy of it)
#   CC_NT=/path/to/clang                    another compiler
#   CLAUSE=0 bench/apps/readonly.sh         build the readonly variant with
#                                           the kmp_readonly_* API instead of
#                                           the readonly(list) clause (the
#                                           default, -DUSE_READONLY_CLAUSE)
#   OUT=dir bench/apps/readonly.sh          where logs, CSV and table go
#                                           (default build/bench-apps/readonly)
#
# Guests: N nodes with N vCPUs, MEM MiB per node (default 1024), one thread
# per vCPU, OMP_PROC_BIND=spread OMP_PLACES=cores, numa_balancing 0,
# transparent_hugepage=madvise (A is malloc'ed: 4 KiB pages).
# KMP_READONLY_BUDGET=BUDGET (default 3G): the default budget, a quarter of
# the guest's memory, is smaller than the replicas of a 512 MiB matrix on 3
# nodes. The host has 2 cores: the 2-node guest (2 vCPUs) is the one whose
# times mean something; TCG times are emulated, and TCG does not model NUMA
# distances (a remote read costs what a local one does), so the ratios show
# the cost of each variant's set-up, not the benefit of local reads, which
# local_reads shows. Exits non-zero if a run fails its verification, does
# not report, or the variants' solutions differ.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$top/build/bench-apps/readonly}
cc=${CC_NT:-$top/build/bin/clang}
nodes_list=${NODES:-4 2}
reps=${REPS:-3}
n=${N:-8192}
iters=${ITERS:-10}
mem=${MEM:-1024}
budget=${BUDGET:-3G}
host=${HOST:-1}
variants="seq nexttouch readonly ideal"
numavm=${NUMA_VM:-$top/tools/numa-vm/numa-vm}

[ -x "$cc" ] || { echo "readonly.sh: $cc not found: run make first" >&2; exit 2; }
mkdir -p "$out/logs"
# One libomp for every run: a copy, which a rebuild during the run does not
# change.
src_lib=${LIBOMP_DIR:+$LIBOMP_DIR/libomp.so}
src_lib=$(readlink -f "${src_lib:-$top/build/openmp/runtime/src/libomp.so}")
libdir=$out/lib
mkdir -p "$libdir"
cp "$src_lib" "$libdir/libomp.so" ||
  { echo "readonly.sh: cannot copy $src_lib" >&2; exit 2; }
cflags=(-fopenmp -O2 -Wall -Wextra)
# A clang without the clause ignores it with -Wextra-tokens: make that an
# error.
[ "${CLAUSE:-1}" = 1 ] && cflags+=(-DUSE_READONLY_CLAUSE -Werror=extra-tokens)
"$cc" "${cflags[@]}" "$top/bench/apps/jacobi_dense.c" -L"$libdir" \
  -Wl,-rpath,"$libdir" -lnuma -lm -o "$out/jacobi_dense" ||
  { echo "readonly.sh: building jacobi_dense failed" >&2; exit 2; }
used=$(ldd "$out/jacobi_dense" | awk '/libomp/ { print $3 }')
[ "$(readlink -f "$used")" = "$libdir/libomp.so" ] ||
  { echo "readonly.sh: the binary uses $used, not the copy" >&2; exit 2; }

ident="commit=$(git -C "$top" log -1 --format=%h 2>/dev/null || echo -)"
if git -C "$top" status --porcelain -- openmp clang llvm patches bench/apps \
  2>/dev/null | grep -q .; then ident+=" worktree=modified"; else
  ident+=" worktree=clean"; fi
ident+=" libomp=$src_lib libomp_sha1=$(sha1sum "$libdir/libomp.so" | cut -c1-12)"
ident+=" libomp_mtime=$(date -u -r "$src_lib" +%Y-%m-%dT%H:%M:%SZ)"
ident+=" cc=$("$cc" --version | head -1 | tr ' ' _) n=$n iters=$iters reps=$reps"
ident+=" mem_per_node_mib=$mem budget=$budget clause=${CLAUSE:-1}"

# The commands of one run: every variant once, REPS times over.
runs() { # threads
  local s="export OMP_NUM_THREADS=$1 OMP_PROC_BIND=spread OMP_PLACES=cores"
  s+=" KMP_READONLY_BUDGET=$budget;"
  for r in $(seq 1 "$reps"); do
    for v in $variants; do
      s+=" echo RO_RUN variant=$v rep=$r;"
      s+=" $out/jacobi_dense --variant $v $n $iters;"
      s+=" echo RO_EXIT variant=$v rep=$r rc=\$?;"
    done
  done
  echo "$s"
}

status=0
logs=()
if [ "$host" = 1 ]; then
  log=$out/logs/readonly-host.log
  logs+=("$log")
  echo "readonly.sh: host (1 node, KMP_READONLY_FORCE=true) ..." >&2
  {
    echo "RO_BENCH where=host nodes=1 cpus=$(nproc) $ident" \
      "date=$(date -u +%Y-%m-%dT%H:%M:%SZ) load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)" \
      "kernel=$(uname -r)"
    KMP_READONLY_FORCE=true sh -c "$(variants="readonly ideal" runs 2)"
  } >"$log" 2>&1
fi
for nodes in $nodes_list; do
  log=$out/logs/readonly-${nodes}n.log
  logs+=("$log")
  echo "readonly.sh: guest, $nodes nodes, $nodes vCPUs, $reps x 4 runs ..." >&2
  t0=$(date +%s)
  {
    echo "RO_BENCH where=guest nodes=$nodes cpus=$nodes $ident" \
      "date=$(date -u +%Y-%m-%dT%H:%M:%SZ) load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)"
    "$numavm" --nodes "$nodes" --cpus "$nodes" --mem "$mem" --numa-balancing 0 \
      --kernel-arg transparent_hugepage=madvise --timeout 3600 \
      --file "$out/jacobi_dense" --file "$libdir" -- sh -c "$(runs "$nodes")"
    echo "RO_GUEST rc=$? wall_s=$(($(date +%s) - t0))"
  } >"$log" 2>&1
done

# CSV (one row per process) and the table (medians per node count and
# variant); also checks the runs.
python3 - "$out" "${logs[@]}" <<'EOF' || status=1
import csv, statistics as st, sys
out, logs = sys.argv[1], sys.argv[2:]
def kv(line):
    d = {}
    for f in line.split()[1:]:
        k, _, v = f.partition('=')
        d[k] = v
    return d
cols = ['where', 'nodes', 'threads', 'variant', 'rep', 'n', 'iters',
        'init_ms', 'first_ms', 'steady_ms', 'mean_ms', 'total_ms',
        'local_reads', 'local_a', 'local_b', 'rss_delta', 'replica_bytes',
        'ro_regions', 'ro_replicas', 'ro_bytes_replicated', 'ro_bytes_first',
        'ro_replicas_reused', 'ro_refreshes', 'ro_serial_writes',
        'ro_write_traps', 'ro_fallback_one_node', 'ro_fallback_budget',
        'ro_fallback_unreplicable', 'ro_replica_ns', 'ro_ns_first',
        'ro_us_per_page', 'ro_ms_per_mib', 'floor_alloc_us_per_page',
        'floor_copy_us_per_page', 'nt_pages_armed',
        'nt_pages_migrated', 'nt_faults', 'err', 'bound', 'resid',
        'checksum', 'result', 'rc']
rows, ok, heads = [], True, []
for log in logs:
    where, rep, res, cks, nrun = '-', '-', {}, set(), 0
    for line in open(log, errors='replace'):
        line = line.strip()
        if line.startswith('RO_BENCH '):
            where = kv(line)['where']; heads.append(line)
        elif line.startswith('RO_RUN '):
            rep = kv(line)['rep']; res = {}; nrun += 1
        elif line.startswith('RO_RESULT '):
            res = kv(line)
        elif line.startswith('RO_EXIT '):
            e = kv(line)
            if not res or e['rc'] != '0':
                print(f'readonly.sh: {log}: {e["variant"]} rep {e["rep"]} '
                      f'failed (rc={e["rc"]})'); ok = False
            if res:
                res.update(where=where, rep=rep, rc=e['rc'])
                rows.append(res); cks.add(res['checksum'])
        elif line.startswith('RO_GUEST ') and kv(line)['rc'] != '0':
            print(f'readonly.sh: {log}: guest exited {kv(line)["rc"]}'); ok = False
    if nrun == 0:
        print(f'readonly.sh: {log}: nothing ran'); ok = False
    if len(cks) > 1:
        print(f'readonly.sh: {log}: the variants\' solutions differ: {cks}')
        ok = False
with open(f'{out}/readonly.csv', 'w', newline='') as f:
    for h in heads:
        f.write('# ' + h + '\n')
    w = csv.writer(f, lineterminator='\n')
    w.writerow(cols)
    for r in rows:
        w.writerow([r.get(c, '-') for c in cols])
def med(rs, k):
    v = [float(r[k]) for r in rs if r.get(k, '-') not in ('-', '')]
    return st.median(v) if v else None
lines = []
# setup: (first iteration - steady iteration) / ideal's steady iteration:
# what the migration or the replication cost, in iterations of the solver.
hdr = [('where', 5), ('nodes', 5), ('variant', 9), ('runs', 4),
       ('steady ms', 9), ('mean ms', 9), ('steady/ideal', 12),
       ('mean/ideal', 10), ('setup iters', 11), ('% local', 7),
       ('replicas MiB', 12), ('us/page', 7), ('ms/MiB', 6),
       ('floor us/page', 13), ('reused', 6), ('refresh', 7),
       ('result', 8)]
fmt = '| ' + ' | '.join('{:%s%d}' % ('<' if i < 3 else '>', w)
                        for i, (_, w) in enumerate(hdr)) + ' |'
lines.append(fmt.format(*[h for h, _ in hdr]))
lines.append(fmt.format(*['-' * w for _, w in hdr]))
keys = []
for r in rows:
    k = (r['where'], r['nodes'], r['variant'])
    if k not in keys:
        keys.append(k)
f = lambda v, p: '-' if v is None else f'{v:.{p}f}'
for k in keys:
    rs = [r for r in rows if (r['where'], r['nodes'], r['variant']) == k]
    ideal = [r for r in rows if (r['where'], r['nodes']) == k[:2]
             and r['variant'] == 'ideal']
    s, m = med(rs, 'steady_ms'), med(rs, 'mean_ms')
    si, mi = med(ideal, 'steady_ms'), med(ideal, 'mean_ms')
    fe = med([dict(x=float(r['first_ms']) - float(r['steady_ms']))
              for r in rs], 'x')
    rb = med(rs, 'replica_bytes')
    fl = med([dict(x=float(r['floor_alloc_us_per_page']) +
                   float(r['floor_copy_us_per_page'])) for r in rs
              if r.get('floor_alloc_us_per_page', '-') != '-'], 'x')
    lr = med(rs, 'local_reads')
    lines.append(fmt.format(
        k[0], k[1], k[2], len(rs), f(s, 1), f(m, 1),
        f(s / si, 3) if s and si else '-', f(m / mi, 3) if m and mi else '-',
        f(fe / si, 2) if si and k[2] != 'ideal' else '-',
        f(100 * lr, 2) if lr is not None else '-',
        f(rb / 2**20, 1) if rb else '-', f(med(rs, 'ro_us_per_page'), 2),
        f(med(rs, 'ro_ms_per_mib'), 2), f(fl, 2),
        f(med(rs, 'ro_replicas_reused'), 0) if rb else '-',
        f(med(rs, 'ro_refreshes'), 0) if rb else '-',
        'VERIFIED' if all(r['result'] == 'VERIFIED' for r in rs)
        else 'FAILED'))
    if any(r['result'] != 'VERIFIED' for r in rs):
        ok = False
table = '\n'.join(lines)
with open(f'{out}/readonly-table.txt', 'w') as f:
    f.write('\n'.join('# ' + h for h in heads) + '\n' + table + '\n')
print(table)
sys.exit(0 if ok else 1)
EOF
[ $status -eq 0 ] && echo "readonly.sh: all runs verified ($out)" ||
  echo "readonly.sh: FAILED (see above)"
exit $status
