"""The C library wrappers' idle cost."""

from reportlib.common import *  # noqa: F401,F403

# The targets of the wrappers' cost: ours / stock per call, for these calls.
WRAP_TARGETS = {("write", "idle"): 1.02, ("read", "idle"): 1.02,
                ("write", "in-use"): 1.2, ("read", "in-use"): 1.2}


def wrap_rows(d):
    """(call, state, ours ns, stock ns, ratio) from the native log: the best
    per-call time of each library over all its runs; None if a run failed."""
    best, lib, runs = {}, None, {"ours": 0, "stock": 0}
    for line in read(os.path.join(d, "logs", "wrappers-host.log")).splitlines():
        f = line.split()
        if f[:1] == ["WRAP_RUN"]:
            lib = f[1]
        elif f[:1] == ["WRAP_LIBOMP"] and lib in runs and f[1] == lib:
            runs[lib] += 1
        elif f[:1] == ["WRAP"] and len(f) == 4 and lib:
            k = (f[1], f[2], lib)
            best[k] = min(best.get(k, 1e30), float(f[3]))
    order = []
    for (c, s, _) in best:
        if (c, s) not in order:
            order.append((c, s))
    rows = [(c, s, best[(c, s, "ours")], best[(c, s, "stock")],
             best[(c, s, "ours")] / best[(c, s, "stock")])
            for c, s in order if (c, s, "ours") in best and (c, s, "stock") in best]
    return (rows if runs["ours"] and runs["stock"] and rows else None), runs


def wrap_lines(rows):
    L = []
    for c, s, o, t, q in rows:
        target = WRAP_TARGETS.get((c, s))
        mark = "" if target is None else "  target <= %.2f: %s" % (
            target, "met" if q <= target else "MISSED")
        L.append("%-24s %-7s %9.1f ns vs %9.1f ns  %.3f%s" % (c, s, o, t, q, mark))
    return L


def cmd_wrappers(d):
    rows, runs = wrap_rows(d)
    o = os.path.join(d, "wrappers")
    os.makedirs(o, exist_ok=True)
    if not rows:
        print("wrappers: no complete run (ours %d, stock %d)" % (runs["ours"], runs["stock"]))
        return 1
    with open(os.path.join(o, "wrappers.csv"), "w") as f:
        f.write("call,state,ours_ns,stock_ns,ratio\n")
        for r in rows:
            f.write("%s,%s,%.1f,%.1f,%.3f\n" % r)
    L = ["wrappers: per call, ours / Debian's stock libomp (native, best of %d runs each)"
         % runs["ours"]] + ["  " + l for l in wrap_lines(rows)]
    open(os.path.join(o, "wrappers-summary.txt"), "w").write("\n".join(L) + "\n")
    print("\n".join(L))
    return 0


def sum_wrappers(d, L):
    L.append("7. The C library wrappers (native; ours / Debian's stock libomp per call)")
    rows, _ = wrap_rows(d)
    if not rows:
        L.append("   no results")
        return True
    L += ["   " + l for l in wrap_lines(rows)]
    return True


def page_wrappers(d):
    rows, runs = wrap_rows(d)
    if not rows:
        return ["No results."]
    L = ["The same program (``bench/wrapper_cost.c``) against our libomp and against "
         "Debian's stock libomp of the release, natively, best per-call time of %d runs "
         "each in alternation; *idle*: no engine used, *in-use*: pages armed for "
         "next-touch (not the buffers) and a readonly item cached:" % runs["ours"], ""]
    L += rst_table(["call", "state", "ours (ns)", "stock (ns)", "ratio", "target"],
                   [[c, s, "%.1f" % o, "%.1f" % t, "%.3f" % q,
                     ("<= %.2f: %s" % (WRAP_TARGETS[(c, s)],
                                       "met" if q <= WRAP_TARGETS[(c, s)] else "missed"))
                     if (c, s) in WRAP_TARGETS else ""] for c, s, o, t, q in rows],
                   right=(2, 3, 4))
    L += ["", "Data: %s." % rst_file("wrappers.csv")]
    return L
