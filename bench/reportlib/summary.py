"""The suite's summary: every target met or missed, with its figure."""

from reportlib.common import *  # noqa: F401,F403
from reportlib.accuracy import acc_rows, acc_target
from reportlib.curves import curves_figures, curves_lines, curves_load
from reportlib.dist import dist_figures, dist_load, dist_seed, dist_seed_lines
from reportlib.readonly import rc_figures, ro_medians, ro_rows, ro_targets
from reportlib.solvers import SOL_MAIN, SOL_PROGS, sol_analysis
from reportlib.wrappers import sum_wrappers


def figures(d):
    """Everything the summary and the page need, from the families' reports
    (the distribution's CSV) and the logs."""
    F = {}
    path = os.path.join(d, "dist", "nexttouch_dist.csv")
    if os.path.exists(path):
        F["dist_meta"], F["dist_rows"] = dist_load(path)
        F["dist"] = dist_figures(F["dist_rows"])
    F["dist_seed"] = dist_seed(d)
    F["acc_rows"], F["acc_bad"] = acc_rows(d)
    F["sol_boots"], F["sol_runs"], _, F["sol"] = sol_analysis(d)
    F["rc_rows"] = []
    F["ro_rows"], _, F["ro_bad"] = ro_rows(d, F["rc_rows"])
    F["ro"] = ro_medians(F["ro_rows"])
    F["ro_t"] = ro_targets(F["ro_rows"])
    size, ranges, threads, F["curves_bad"] = curves_load(d)
    F["curves"] = curves_figures(size, ranges, threads)
    F["rc"] = rc_figures(F["rc_rows"], F["ro"])
    return F


def sum_dist(F, L):
    if "dist" not in F:
        L.append("distribution: no results")
        return True
    f, rows = F["dist"], F["dist_rows"]
    ok = all(r["checksum"] == "ok" for r in rows)
    L.append("1. Distribution (RFC): serial init on node 0, one parallel pass; "
             "2 nodes, 2 threads")
    p = f.get("pairs")
    if p:
        L.append("   [%s] ours/oracle <= %.2f: median %.2f over %d pairs (IQR %.2f-%.2f, "
                 "95%% CI %.2f-%.2f)  EMULATED, %d MiB" % (
                     mark(p["met"]), TARGET_OURS_ORACLE, p["median"], p["n"],
                     p["q1"], p["q3"], p["ci"][0], p["ci"][1], p["mib"]))
    else:
        L.append("   [MISSED] ours/oracle: no pairs measured")
    seed = F.get("dist_seed")
    if seed:
        L.append("   " + dist_seed_lines(seed)[0])
        ok = ok and seed["ok"]
    r = f.get("ref_ours")
    if r:
        L.append("   [%s] reference/ours >= %.0f: %.1f (medians of %d; slowest ours vs "
                 "fastest reference %.1f)  EMULATED, %d MiB" % (
                     mark(r["met"]), TARGET_REF_OURS, r["ratio"], r["n"], r["worst"], r["mib"]))
    else:
        L.append("   [MISSED] reference/ours: the reference did not run")
    n = f.get("native")
    if n:
        nan = float("nan")
        ref, ex = n.get("reference"), n.get("ours-exact")
        L.append("   native fault path per page (this host, 1 node, nothing moves): ours %.2f us "
                 "(default), %.2f us (exact, 1 page/fault), THP %.2f us; reference %.1f us "
                 "(%.1f without move_pages)%s" % (
                     n.get("ours-default", nan), ex or nan, n.get("ours-thp", nan), ref or nan,
                     n.get("reference-nomove", nan),
                     "; reference/ours-exact %.1f" % (ref / ex) if ref and ex else ""))
    local = [r for r in rows if r["where"] == "guest-tcg" and r["variant"] != "none"]
    if local:
        L.append("   pages on their toucher's node (every migrating variant, every run): "
                 "min %.1f %%; checksums %s" % (
                     min(r["local_pct"] for r in local), "ok" if ok else "WRONG"))
    return ok


def acc_summary(rows):
    """Per node count: (met, [(pattern, pct string, hit)]) of the default window."""
    out = {}
    for r in rows:
        if r.get("window") != "default":
            continue
        hit = float(r["pct_local"]) >= acc_target(r["pattern"])
        met, cells = out.setdefault(r["nodes"], [True, []])
        out[r["nodes"]][0] = met and hit
        cells.append((r["pattern"], r["pct_local"].rstrip("0").rstrip("."), hit))
    return out


def sum_accuracy(F, L):
    L.append("2. Placement accuracy, default settings (% of pages on their first "
             "toucher's node)")
    rows = F["acc_rows"]
    if not rows:
        L.append("   no results")
        return True
    for nodes, (met, cells) in sorted(acc_summary(rows).items(), key=lambda x: int(x[0])):
        L.append("   [%s] %s nodes (block >= %g, others >= %g): %s" % (
            mark(met), nodes, ACC_TARGET["block"], ACC_TARGET_OTHER,
            ", ".join("%s %s%s" % (p, v, "" if h else "!") for p, v, h in cells)))
    if not acc_summary(rows):
        L.append("   no default-window rows")
    return all(r.get("check") == "ok" for r in rows)


def sol_sweep(runs):
    """The sweep's figures: nexttouch runs, how many agree with ideal's
    placement (per-node shares within 0.02, local share within 0.01), local
    shares of bound and unbound threads."""
    sw = [r for r in runs if r["boot"].startswith("sweep")]
    nt = [r for r in sw if r["variant"] == "nexttouch"]

    def shares(r):
        c = r["per_node"]
        return [x / sum(c) for x in c] if c and sum(c) else []
    agree = 0
    for r in nt:
        i = [x for x in sw if x["variant"] == "ideal" and x["boot"] == r["boot"]
             and x["prog"] == r["prog"] and x["bind"] == r["bind"] and x["places"] == r["places"]]
        a, b = shares(r), shares(i[0]) if i else []
        if a and len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) <= 0.02 \
                and abs(i[0]["fk"] - r["fk"]) <= 0.01:
            agree += 1
    return {"n": len(nt), "agree": agree,
            "bound": [r["fk"] for r in nt if r["bind"] != "false"],
            "free": [r["fk"] for r in nt if r["bind"] == "false"]}


def sum_solvers(F, L):
    L.append("3. Jacobi and CG, serial init, 2 nodes (local share after 1 iteration; "
             "EMULATED times)")
    runs, S = F["sol_runs"], F["sol"]
    if not runs:
        L.append("   no results")
        return True
    ok = all(r["result"] == "VERIFIED" and r.get("rc") == "0" for r in runs)
    for prog in SOL_PROGS:
        m = [r for r in runs if r["boot"] == "main" and r["prog"] == prog]
        loc = {}
        for v in SOL_MAIN:
            xs = [r["f1"] for r in m if r["variant"] == v and r["f1"] is not None]
            if xs:
                loc[v] = statistics.median(xs)
        a = S.get(prog, {})
        c = a.get("_cmp")
        c4 = a.get("_cmp4")
        if c4:
            L.append("   [%s] %-6s nexttouch/oracle one-time overhead <= %.2f, 4 nodes: %.2f, "
                     "medians over %d reps (per rep %.2f-%.2f); without start-up %.2f  "
                     "EMULATED" % (
                         mark(c4["met"]), prog, TARGET_SOLVER_ORACLE, c4["ratio"], c4["n"],
                         c4["min"], c4["max"], c4["warm"]))
        if c:
            nt, orc = c["nexttouch"], c["oracle"]
            L.append("   [%s] %-6s nexttouch/oracle one-time overhead <= %.2f: %.2f, medians "
                     "over %d reps (per rep median %.2f, min-max %.2f-%.2f)  EMULATED" % (
                         mark(c["met"]), prog, TARGET_SOLVER_ORACLE, c["ratio"], c["n"],
                         c["per_med"], c["min"], c["max"]))
            L.append("          without the engine's start-up (%.1f ms, once per process) %.2f "
                     "(%.2f-%.2f); %s faults for %s pages; TLB shoot-downs nexttouch %s, oracle "
                     "%s, none %s" % (
                         nt["startup_ms"] or 0, c["warm"], c["warm_min"], c["warm_max"],
                         fmt(nt["faults"], ".0f"), fmt(nt["armed"], ".0f"), fmt(nt["tlb"], ".0f"),
                         fmt(orc["tlb"], ".0f"), fmt(c["tlb_none"], ".0f")))
            L.append("          overhead nexttouch %.1f, oracle %.1f ideal iter.; break-even "
                     "(R=2) nexttouch %s, oracle %s iter.; local@1 nexttouch %s, oracle %s" % (
                         nt["O_it"], orc["O_it"], fmt(nt["be"], ".1f"), fmt(orc["be"], ".1f"),
                         fmt(nt["f1"]), fmt(orc["f1"])))
        loc.pop("oracle", None)
        s = "   %-6s local@1: %s" % (prog, ", ".join("%s %.3f" % kv_ for kv_ in loc.items()))
        if "_over" in a and a["_be"].get(2.0) is not None and not c:
            s += "; overhead %.1f ideal iter., break-even %.1f iter. (R=2)" % (
                a["_over"] / a["_tideal"], a["_be"][2.0])
        L.append(s)
        an = a.get("_autonuma")
        if an:
            L.append("          AutoNUMA reached nexttouch's locality in %d of %d runs%s" % (
                an["reached"], an["n"], ", after %.0f iterations (%.2f s of solver time)" % (
                    an["it"], an["solver_s"]) if an["it"] is not None else ""))
    sw = sol_sweep(runs)
    if sw["n"]:
        nan = float("nan")
        L.append("4. OMP_PROC_BIND x OMP_PLACES, 2 and 4 nodes, %d nexttouch runs: local share "
                 "bound (close/spread/primary) >= %.3f; unbound (false) %.3f-%.3f" % (
                     sw["n"], min(sw["bound"]) if sw["bound"] else nan,
                     min(sw["free"]) if sw["free"] else nan, max(sw["free"]) if sw["free"] else nan))
        L.append("   pages per node and local share as ideal init's (within 0.02, 0.01) in "
                 "%d of %d (an unbound thread that moves leaves its pages behind)" % (
                     sw["agree"], sw["n"]))
    return ok


def sum_readonly(F, L):
    L.append("5. readonly replicas, dense Jacobi (ROSS'12)")
    meds = F["ro"]
    if not meds:
        L.append("   no results")
        return True
    for x in meds:
        if x["variant"] == "readonly":
            host = x["where"] == "host"
            L.append("   %s %s node%s: %s %% local reads, setup %s ideal iter., %s us/page%s" % (
                "native" if host else "guest", x["nodes"], "" if x["nodes"] == "1" else "s",
                fmt(None if x["local"] is None else 100 * x["local"], ".2f"),
                fmt(x["setup"], ".2f"), fmt(x["us_page"], ".2f"), " (native)" if host else ""))
    seq = [x for x in meds if x["variant"] == "seq" and x["where"] == "guest"]
    if seq:
        L.append("   (serial init alone: %s %% local reads)" % ", ".join(
            "%s nodes %s" % (x["nodes"], fmt(100 * x["local"], ".2f")) for x in seq))
    for (where, nodes), t in F["ro_t"].items():
        x = t["ro_ideal"]
        if x and where == "guest":
            L.append("   [%s] readonly/ideal, time per iteration after set-up, %s nodes <= %.2f: "
                     "median %.3f over %d reps (min-max %.3f-%.3f)  EMULATED" % (
                         mark(x["met"]), nodes, TARGET_RO_IDEAL, x["median"], x["n"],
                         x["min"], x["max"]))
    for (where, nodes), t in F["ro_t"].items():
        y = t["nt_oracle"]
        if y and where == "guest":
            L.append("   dense Jacobi %s nodes, nexttouch/oracle set-up: median %.2f over %d reps "
                     "(min-max %.2f-%.2f)" % (nodes, y["median"], y["n"], y["min"], y["max"]))
    for where in ("host", "guest"):
        for nodes in sorted({r.get("nodes") for r in F["rc"] if r["where"] == where}):
            rs = [r for r in F["rc"] if r["where"] == where and r.get("nodes") == nodes]
            if rs:
                L.append("   per-region cost, cached unchanged items, %s %s node(s), %s threads: %s" % (
                    "native" if where == "host" else "guest", nodes, rs[0].get("threads"),
                    ", ".join("%s: %.1f us = %s ideal iter." % (
                        r.get("items"), r["cost"], fmt(r["iters"], ".4f")) for r in rs)))
    return all(x["ok"] for x in meds) and not F["ro_bad"]


def sum_curves(F, L):
    L.append("6. Cost curves (how each cost grows; exponent of a log-log fit)")
    C = F["curves"]
    if not (C["size"] or C["ranges"] or C["threads"]):
        L.append("   no results")
        return True
    for line in curves_lines(C):
        L.append("   " + line)
    return not F["curves_bad"]


def wall_times(d):
    t = read(os.path.join(d, "logs", "times.txt"))
    m = re.search(r"total wall time: (\d+) s", t)
    return (int(m.group(1)) if m else None), re.findall(r"boot (\d+n): (\d+) s in all", t)


def summary_text(d, F):
    L = ["", "=" * 78, "nexttouch benchmark suite: every target (EMULATED = ratio of variants "
         "in", "one QEMU/TCG guest run; native = this host)", "=" * 78]
    ok = sum_dist(F, L)
    ok &= sum_accuracy(F, L)
    ok &= sum_solvers(F, L)
    ok &= sum_readonly(F, L)
    ok &= sum_curves(F, L)
    ok &= sum_wrappers(d, L)
    L.append("-" * 78)
    total, boots = wall_times(d)
    L.append("wall time %s%s" % ("%d min %02d s" % divmod(total, 60) if total else "?",
                                 " (guests: %s)" % ", ".join("%s %s s" % b for b in boots)
                                 if boots else ""))
    L.append("data checks and verifications: %s" % ("all passed" if ok else "SOME FAILED"))
    return L


def cmd_summary(d):
    text = "\n".join(summary_text(d, figures(d)))
    open(os.path.join(d, "summary.txt"), "w").write(text + "\n")
    print(text)
    return 0
