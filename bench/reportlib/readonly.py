"""readonly(list): the steady-state ratios and the per-region cost."""

from reportlib.common import *  # noqa: F401,F403

RO_COLS = ['where', 'nodes', 'threads', 'variant', 'rep', 'n', 'iters',
           'init_ms', 'first_ms', 'steady_ms', 'mean_ms', 'total_ms',
           'local_reads', 'local_a', 'local_b', 'rss_delta', 'replica_bytes',
           'ro_regions', 'ro_replicas', 'ro_bytes_replicated', 'ro_bytes_first',
           'ro_replicas_reused', 'ro_refreshes', 'ro_serial_writes',
           'ro_write_traps', 'ro_fallback_one_node', 'ro_fallback_budget',
           'ro_fallback_unreplicable', 'ro_replica_ns', 'ro_ns_first',
           'ro_us_per_page', 'ro_ms_per_mib', 'floor_alloc_us_per_page',
           'floor_copy_us_per_page', 'nt_pages_armed',
           'nt_pages_migrated', 'nt_faults', 'oracle_calls', 'oracle_on_node',
           'oracle_ms', 'err', 'bound', 'resid',
           'checksum', 'result', 'rc']


def ro_rows(d, rc_rows=None):
    """One row per process (RO_RESULT), from the native log and the guest
    parts; the list of failures: a run that failed or did not report, a guest
    part that failed, solutions that differ within one log. rc_rows, if a
    list, receives region_cost's RC_RESULT lines (their failures are in the
    list too)."""
    rows, heads, bad = [], [], []
    rc_rows = [] if rc_rows is None else rc_rows
    names = ["readonly-host"] if os.path.exists(log_path(d, "readonly-host")) else []
    for name in names + part_names(d, "readonly-"):
        where, rep, res, cks, nrun = '-', '-', {}, set(), 0
        if name != "readonly-host" and part_rc(d, name) != 0:
            bad.append('%s: guest part exit %s' % (name, part_rc(d, name)))
        for line in read(log_path(d, name)).splitlines():
            line = line.strip()
            if line.startswith('RO_BENCH '):
                where = kv(line)['where']
                heads.append(line)
            elif line.startswith('RO_RUN '):
                rep, res = kv(line)['rep'], {}
                nrun += 1
            elif line.startswith('RO_RESULT '):
                res = kv(line)
            elif line.startswith('RC_RESULT '):
                rc_rows.append(kv(line))
                if rc_rows[-1].get('ok') != 'yes':
                    bad.append('%s: region_cost threads %s items %s: counters or reads wrong'
                               % (name, rc_rows[-1].get('threads'), rc_rows[-1].get('items')))
            elif line.startswith('RC_EXIT '):
                if kv(line).get('rc') != '0':
                    bad.append('%s: region_cost exit %s' % (name, kv(line).get('rc')))
            elif line.startswith('RO_EXIT '):
                e = kv(line)
                if not res or e['rc'] != '0':
                    bad.append('%s: %s rep %s failed (rc=%s)' % (name, e['variant'], e['rep'],
                                                                 e['rc']))
                if res:
                    res.update(where=where, rep=rep, rc=e['rc'])
                    rows.append(res)
                    cks.add(res['checksum'])
        if nrun == 0:
            bad.append('%s: nothing ran' % name)
        if len(cks) > 1:
            bad.append("%s: the variants' solutions differ: %s" % (name, sorted(cks)))
    return rows, heads, bad


def ro_medians(rows):
    """Per (where, nodes, variant), medians over the repetitions; ratios to
    ideal's in the same guest; setup = (first - steady iteration) / ideal's
    steady iteration: what the migration or the replication cost, in
    iterations of the solver."""
    def m(rs, k):
        return med([num(r[k]) for r in rs if r.get(k, '-') not in ('-', '')])
    keys, out = [], []
    for r in rows:
        if (r['where'], r['nodes'], r['variant']) not in keys:
            keys.append((r['where'], r['nodes'], r['variant']))
    for k in keys:
        rs = [r for r in rows if (r['where'], r['nodes'], r['variant']) == k]
        ideal = [r for r in rows if (r['where'], r['nodes']) == k[:2] and r['variant'] == 'ideal']
        s, mn, si, mi = m(rs, 'steady_ms'), m(rs, 'mean_ms'), m(ideal, 'steady_ms'), m(ideal, 'mean_ms')
        fe = med([num(r['first_ms']) - num(r['steady_ms']) for r in rs])
        fl = med([num(r['floor_alloc_us_per_page']) + num(r['floor_copy_us_per_page'])
                  for r in rs if r.get('floor_alloc_us_per_page', '-') != '-'])
        rb = m(rs, 'replica_bytes')
        out.append({
            'where': k[0], 'nodes': k[1], 'variant': k[2], 'runs': len(rs),
            'steady': s, 'mean': mn,
            'steady_ideal': s / si if s and si else None,
            'mean_ideal': mn / mi if mn and mi else None,
            'setup': fe / si if si and k[2] != 'ideal' else None,
            'local': m(rs, 'local_reads'),
            'replica_mib': rb / 2**20 if rb else None, 'us_page': m(rs, 'ro_us_per_page'),
            'ms_mib': m(rs, 'ro_ms_per_mib'), 'floor': fl,
            'reused': m(rs, 'ro_replicas_reused') if rb else None,
            'refresh': m(rs, 'ro_refreshes') if rb else None,
            'steady_range': (min(num(r['steady_ms']) for r in rs),
                             max(num(r['steady_ms']) for r in rs)),
            'ok': all(r['result'] == 'VERIFIED' for r in rs)})
    return out


def ro_pairs(rows, where, nodes, num_v, den_v, key):
    """Per repetition of one guest (or the host), key(num_v row) / key(den_v
    row): the ratios, their median, min, max and count (None if none)."""
    xs = []
    reps = sorted({r['rep'] for r in rows if (r['where'], r['nodes']) == (where, nodes)})
    for rep in reps:
        g = {r['variant']: r for r in rows
             if (r['where'], r['nodes'], r['rep']) == (where, nodes, rep)}
        if num_v in g and den_v in g:
            a, b = key(g[num_v]), key(g[den_v])
            if a is not None and b:
                xs.append(a / b)
    if not xs:
        return None
    return {'ratios': xs, 'median': med(xs), 'min': min(xs), 'max': max(xs), 'n': len(xs)}


def ro_targets(rows):
    """Per (where, nodes): readonly's steady iteration / ideal's (the target),
    and nexttouch's set-up / the oracle's (first - steady iteration, each
    against its own steady one)."""
    out = {}
    for where, nodes in sorted({(r['where'], r['nodes']) for r in rows},
                               key=lambda x: (x[0] != 'guest', int(x[1]))):
        t = {'where': where, 'nodes': nodes}
        t['ro_ideal'] = ro_pairs(rows, where, nodes, 'readonly', 'ideal',
                                 lambda r: num(r['steady_ms']))
        if t['ro_ideal']:
            t['ro_ideal']['met'] = t['ro_ideal']['median'] <= TARGET_RO_IDEAL
        t['nt_oracle'] = ro_pairs(rows, where, nodes, 'nexttouch', 'oracle',
                                  lambda r: num(r['first_ms']) - num(r['steady_ms']))
        out[(where, nodes)] = t
    return out


def rc_figures(rc_rows, meds):
    """region_cost's lines with the cost in ideal iterations of the dense
    Jacobi in the same guest (or on the host)."""
    ideal = {(x['where'], x['nodes']): x['steady'] for x in meds if x['variant'] == 'ideal'}
    out = []
    for r in rc_rows:
        where = 'host' if r.get('where') == 'host' else 'guest'
        t = ideal.get((where, r.get('nodes')))
        c = num(r.get('cost_us'))
        out.append(dict(r, where=where, cost=c, lo=num(r.get('cost_min_us')),
                        hi=num(r.get('cost_max_us')), plain=num(r.get('plain_us')),
                        wall=num(r.get('wall_us')), wlo=num(r.get('wall_min_us')),
                        whi=num(r.get('wall_max_us')),
                        iters=c / (t * 1e3) if c is not None and t else None))
    return out


def ro_table(meds):
    hdr = [('where', 5), ('nodes', 5), ('variant', 9), ('runs', 4),
           ('steady ms', 9), ('mean ms', 9), ('steady/ideal', 12),
           ('mean/ideal', 10), ('setup iters', 11), ('% local', 7),
           ('replicas MiB', 12), ('us/page', 7), ('ms/MiB', 6),
           ('floor us/page', 13), ('reused', 6), ('refresh', 7), ('result', 8)]
    f_ = '| ' + ' | '.join('{:%s%d}' % ('<' if i < 3 else '>', w)
                           for i, (_, w) in enumerate(hdr)) + ' |'
    L = [f_.format(*[h for h, _ in hdr]), f_.format(*['-' * w for _, w in hdr])]
    for x in meds:
        L.append(f_.format(
            x['where'], x['nodes'], x['variant'], x['runs'], fmt(x['steady'], '.1f'),
            fmt(x['mean'], '.1f'), fmt(x['steady_ideal']), fmt(x['mean_ideal']),
            fmt(x['setup'], '.2f'), fmt(None if x['local'] is None else 100 * x['local'], '.2f'),
            fmt(x['replica_mib'], '.1f'), fmt(x['us_page'], '.2f'), fmt(x['ms_mib'], '.2f'),
            fmt(x['floor'], '.2f'), fmt(x['reused'], '.0f'), fmt(x['refresh'], '.0f'),
            'VERIFIED' if x['ok'] else 'FAILED'))
    return L


def ro_target_lines(T):
    L = []
    for (where, nodes), t in T.items():
        x = t['ro_ideal']
        if x:
            L.append('%s %s node(s): readonly / ideal, steady iteration: median %.3f over %d '
                     'repetitions (min-max %.3f-%.3f); target <= %.2f: %s' % (
                         where, nodes, x['median'], x['n'], x['min'], x['max'],
                         TARGET_RO_IDEAL, 'met' if x['met'] else 'MISSED'))
        y = t['nt_oracle']
        if y:
            L.append('%s %s node(s): nexttouch / oracle, set-up (first - steady iteration): '
                     'median %.2f over %d repetitions (min-max %.2f-%.2f)' % (
                         where, nodes, y['median'], y['n'], y['min'], y['max']))
    return L


def rc_lines(F):
    L = []
    for r in F:
        L.append('%s %s node(s), %s thread(s), %3s cached items: %.1f us per region in '
                 "readonly's calls (min-max over block pairs %.1f-%.1f) = %s ideal "
                 'iterations; whole region %s us more (%s-%s; plain region %.2f us)' % (
                     r['where'], r.get('nodes'), r.get('threads'), r.get('items'), r['cost'],
                     r['lo'], r['hi'], fmt(r['iters'], '.4f'), fmt(r['wall'], '.1f'),
                     fmt(r['wlo'], '.1f'), fmt(r['whi'], '.1f'), r['plain'] or 0))
    return L


def cmd_readonly(d):
    o = outdir(d, "readonly")
    rc_rows = []
    rows, heads, bad = ro_rows(d, rc_rows)
    with open(os.path.join(o, 'readonly.csv'), 'w', newline='') as f:
        f.write('# readonly benchmark (bench/readonly.sh): %s; commit %s\n' % (
            config(d)[1].get('readonly_params', ''), config(d)[1].get('commit')))
        for h in heads:
            f.write('# ' + h + '\n')
        w = csv.writer(f, lineterminator='\n')
        w.writerow(RO_COLS)
        for r in rows:
            w.writerow([r.get(c, '-') for c in RO_COLS])
    meds = ro_medians(rows)
    bad += ['%s %s nodes, %s: a run failed its verification' % (x['where'], x['nodes'],
                                                              x['variant'])
            for x in meds if not x['ok']]
    table = '\n'.join(ro_table(meds) + [''] + ro_target_lines(ro_targets(rows)) +
                      [''] + rc_lines(rc_figures(rc_rows, meds)))
    with open(os.path.join(o, 'region-cost.csv'), 'w', newline='') as f:
        f.write('# region_cost (bench/region_cost.c): per-region cost of cached, unchanged '
                'readonly items; commit %s\n' % config(d)[1].get('commit'))
        w = csv.writer(f, lineterminator='\n')
        cols = ['where', 'nodes', 'threads', 'items', 'item_pages', 'regions', 'blocks',
                'plain_us', 'readonly_us', 'cost_us', 'cost_min_us', 'cost_max_us',
                'wall_us', 'wall_min_us', 'wall_max_us',
                'reused', 'refreshes', 'replicas', 'ok']
        w.writerow(cols)
        for r in rc_rows:
            w.writerow([r.get(c, '-') for c in cols])
    open(os.path.join(o, 'readonly-table.txt'), 'w').write(
        '\n'.join('# ' + h for h in heads) + '\n' + table + '\n')
    print(table)
    for b in bad:
        print('readonly: ' + b)
    return 1 if bad else 0
