"""docs/Benchmarks.rst's generated results section and bench/results/."""

from reportlib.common import *  # noqa: F401,F403
from reportlib.accuracy import acc_target
from reportlib.curves import curves_lines
from reportlib.dist import dist_medians, dist_seed_lines
from reportlib.solvers import SOL_PROGS
from reportlib.summary import acc_summary, figures, sol_sweep, summary_text, wall_times
from reportlib.wrappers import page_wrappers

# The files docs/Benchmarks.rst shows, copied from the run directory.
SHOWN = {
    "summary.txt": "summary.txt",
    "nexttouch_dist.csv": "dist/nexttouch_dist.csv",
    "nexttouch_dist.png": "dist/nexttouch_dist.png",
    "accuracy.csv": "accuracy/accuracy.csv",
    "solvers-runs.csv": "solvers/solvers-runs.csv",
    "solvers-iterations.png": "solvers/solvers-iterations.png",
    "solvers-locality.png": "solvers/solvers-locality.png",
    "solvers-ratios.png": "solvers/solvers-ratios.png",
    "solvers-autonuma.png": "solvers/solvers-autonuma.png",
    "solvers-bind.png": "solvers/solvers-bind.png",
    "readonly.csv": "readonly/readonly.csv",
    "region-cost.csv": "readonly/region-cost.csv",
    "curves.png": "curves/curves.png",
    "curves-size.csv": "curves/curves-size.csv",
    "curves-ranges.csv": "curves/curves-ranges.csv",
    "curves-threads.csv": "curves/curves-threads.csv",
    "wrappers.csv": "wrappers/wrappers.csv",
}

BEGIN = ".. BEGIN GENERATED RESULTS (bench/report.py page)"

END = ".. END GENERATED RESULTS"


def page_run(d, F):
    lines, c = config(d)
    total, boots = wall_times(d)
    times = read(os.path.join(d, "logs", "times.txt"))
    full = c.get("suite") == "full"
    start = c.get("date", "?")
    kernel = sorted({b["kernel"] for b in F["sol_boots"].values() if b.get("kernel")}) or ["?"]
    sha1 = re.search(r"sha1=(\w+)", c.get("libomp", ""))
    built = re.search(r"built=(\S+)", c.get("libomp", ""))
    commit = c.get("commit", "? worktree=?").split()
    L = ["``make bench-suite%s`` on %s at %s UTC, commit ``%s`` (%s worktree), %s; wall time "
         "%s%s." % (" FULL=1" if full else "", start[:10], start[11:16], commit[0],
                    commit[-1].split("=")[-1],
                    "every family at its full size" if full else "the reduced sizes below",
                    "%d min %02d s" % divmod(total, 60) if total else "?",
                    " (guests: %s)" % ", ".join("%s nodes %s s" % (b[0][:-1], b[1])
                                                for b in boots) if boots else ""), ""]
    L += ["* **Host**: %s; %s; load average %s at the start." % (
              c.get("host_cpu", "?"), c.get("host", "?"), c.get("host_load_at_start", "?")),
          "* **Guests**: %s, guest kernel %s: %s." % (
              c.get("qemu", "?"), ", ".join(kernel),
              c.get("guest", "?").replace("N nodes", "2 or 4 nodes").replace("N vCPUs",
                                                                              "as many vCPUs")),
          "* **Runtime**: libomp SHA-1 ``%s`` (built %s), %s." % (
              sha1.group(1) if sha1 else "?", built.group(1) if built else "?",
              c.get("compiler", "?").split(" (")[0]),
          "* **Sizes**:", ""]
    for fam, what in (("dist", "distribution"), ("accuracy", "placement accuracy"),
                      ("solvers", "Jacobi and CG"), ("readonly", "readonly"),
                      ("curves", "cost curves")):
        L.append("  - %s: %s" % (what, c.get(fam + "_params", "?")))
    parts = re.findall(r"boot (\d+)n: (\S+): (\d+) s, rc (\S+); host load by others: (.*)", times)
    if parts:
        L += ["", "Each guest part's wall time and the host's load by other processes while it "
              "ran (sampled every second; emulated times are only as steady as the host cores "
              "QEMU gets):", ""]
        L += rst_table(["nodes", "part", "wall (s)", "exit", "host load by others (cores)"],
                       [[n, "``%s``" % p, s, rc, load] for n, p, s, rc, load in parts],
                       right=(0, 2, 3))
    return L


def page_targets(F):
    """One row per target: the figure, its spread, the runs, met."""
    T = []
    f = F.get("dist", {})
    p = f.get("pairs")
    if p:
        T.append(["ours / oracle ≤ %.2f (emulated)" % TARGET_OURS_ORACLE,
                  "%.2f" % p["median"], "IQR %.2f-%.2f, 95 %% CI %.2f-%.2f, min-max %.2f-%.2f"
                  % (p["q1"], p["q3"], p["ci"][0], p["ci"][1], p["min"], p["max"]),
                  "%d pairs at %d MiB" % (p["n"], p["mib"]), "yes" if p["met"] else "**no**"])
    r = f.get("ref_ours")
    if r:
        T.append(["reference / ours ≥ %.0f (emulated)" % TARGET_REF_OURS, "%.1f" % r["ratio"],
                  "slowest ours against fastest reference %.1f" % r["worst"],
                  "%d and %d runs at %d MiB" % (r["n"], r["n_ours"], r["mib"]),
                  "yes" if r["met"] else "**no**"])
    for p in SOL_PROGS:
        for key, nodes in (("_cmp", 2), ("_cmp4", 4)):
            c = F["sol"].get(p, {}).get(key)
            if c:
                T.append(["%s: nexttouch / oracle one-time overhead ≤ %.2f (emulated)" % (
                    p, TARGET_SOLVER_ORACLE), "%.2f" % c["ratio"],
                    "per repetition median %.2f, min-max %.2f-%.2f" % (
                    c["per_med"], c["min"], c["max"]),
                    "medians of %d repetitions, %d nodes" % (c["n"], nodes),
                    "yes" if c["met"] else "**no**"])
    for (where, nodes), t in F["ro_t"].items():
        x = t["ro_ideal"]
        if x and where == "guest":
            T.append(["readonly / ideal, time per iteration after set-up, %s nodes ≤ %.2f "
                      "(emulated)" % (nodes, TARGET_RO_IDEAL), "%.3f" % x["median"],
                      "min-max %.3f-%.3f" % (x["min"], x["max"]),
                      "%d repetitions" % x["n"], "yes" if x["met"] else "**no**"])
    for nodes, (met, cells) in sorted(acc_summary(F["acc_rows"]).items(),
                                      key=lambda x: int(x[0])):
        lo = min(cells, key=lambda c: float(c[1]))
        T.append(["placement accuracy, %s nodes: block ≥ %g %%, others ≥ %g %%" % (
            nodes, ACC_TARGET["block"], ACC_TARGET_OTHER),
            "lowest: %s %s %%" % (lo[0], lo[1]), "%d patterns" % len(cells),
            "1 run each", "yes" if met else "**no**"])
    return T


def page_dist(F):
    f, rows = F.get("dist"), F.get("dist_rows")
    if not f:
        return ["No results."]
    r = f.get("ref_ours", {})
    g = dist_medians(rows, "guest-tcg", r.get("mib")) if r else {}
    oracle = g.get("oracle", {}).get("time")
    L = ["**Emulated** (2 nodes, 2 threads, %s MiB; medians and the range of the runs):" %
         r.get("mib", "?"), ""]
    L += rst_table(["variant", "runs", "time (ms)", "min-max (ms)", "/ oracle", "faults",
                    "arm (ms)", "local %"],
                   [[v, m["n"], "%.1f" % m["time"], "%.1f-%.1f" % (min(m["times"]), max(m["times"])),
                     "%.2f" % (m["time"] / oracle) if oracle else "-", "%d" % m["faults"],
                     "%.1f" % m["arm"], "%.1f" % m["local"]] for v, m in g.items()],
                   right=(1, 2, 4, 5, 6, 7))
    p = f.get("pairs")
    if p:
        L += ["", "ours / oracle per pair (%d pairs at %d MiB, each pair back to back, order "
              "alternating): median **%.2f**, interquartile range %.2f-%.2f, bootstrap 95 %% "
              "CI of the median %.2f-%.2f, min %.2f, max %.2f." % (
                  p["n"], p["mib"], p["median"], p["q1"], p["q3"], p["ci"][0], p["ci"][1],
                  p["min"], p["max"])]
    n = f.get("native")
    if n:
        L += ["", "**Native** (this host, one node, forced arming, %d MiB; median of %d runs; "
              "time over the no-migration loop):" % (f["native_mib"], f["native_n"]), ""]
        L += rst_table(["variant", "µs per page"], [[v, "%.2f" % x] for v, x in n.items()],
                       right=(1,))
    if F.get("dist_seed"):
        L += ["", "* " + dist_seed_lines(F["dist_seed"])[0] + "."]
    L += [""] + rst_image("nexttouch_dist.png", "emulated times by variant, ours / oracle per pair, "
                   "native per-page fault-path cost")
    L += ["Data: %s (every run, the configuration as ``#`` lines)." % rst_file(
        "nexttouch_dist.csv")]
    return L


def page_accuracy(F):
    rows = F["acc_rows"]
    if not rows:
        return ["No results."]
    L = ["One run per pattern, node count and window: % of the pages on their first "
         "toucher's node after the loop (``% pre``: before the request):", ""]
    L += rst_table(["nodes", "pattern", "window", "% local", "% pre", "faults/page",
                    "pages/batch", "misplaced per thread", "target", "met"],
                   [[r["nodes"], r["pattern"], r["window"], r["pct_local"], r["pre_pct_local"],
                     r["faults_per_page"], r["pages_per_batch"], r["misplaced_by_thread"],
                     "%g" % acc_target(r["pattern"]),
                     "yes" if float(r["pct_local"]) >= acc_target(r["pattern"]) else "**no**"]
                    for r in rows], right=(0, 3, 4, 5, 6, 8))
    L += ["", "Data: %s." % rst_file("accuracy.csv")]
    return L


def page_solvers(F):
    runs, S, boots = F["sol_runs"], F["sol"], F["sol_boots"]
    if not runs:
        return ["No results."]
    main = [r for r in runs if r["boot"] == "main"]
    nrep = max([int(r["rep"]) for r in main] or [0])
    L = ["**Main part** (2 nodes, 2 threads; medians of %d runs, emulated times; *model*: "
         "time per iteration / ideal with R = %.1f):" % (nrep, NUMA_RATIO), ""]
    tab = []
    for p in SOL_PROGS:
        for v, a in S.get(p, {}).items():
            if v.startswith("_"):
                continue
            ts = [r["tmed"] for r in main if r["prog"] == p and r["variant"] == v
                  and r["tmed"] is not None]
            tab.append([p, v, a["n"],
                        fmt(a["directive_ms"], ".1f") if v in ("nexttouch", "oracle") else "-",
                        fmt(a["t1"], ".1f"), fmt(a["tmed"], ".1f"),
                        "%.1f-%.1f" % (min(ts), max(ts)) if ts else "-", fmt(a["r1"], ".2f"),
                        fmt(a["rmed"], ".2f"), fmt(a["model"], ".2f"), fmt(a["f1"]),
                        fmt(a["fk"]), fmt(a["migrated"], ".0f") if v != "oracle" else "-"])
    L += rst_table(["program", "variant", "runs", "before (ms)", "iter. 1 (ms)",
                    "iter. 2..k (ms)", "min-max", "iter. 1 / ideal", "2..k / ideal",
                    "model / ideal", "local after 1", "local after k", "pages moved"], tab,
                   right=(2, 3, 4, 5, 7, 8, 9, 10, 11, 12))
    L += ["", "*before*: the step before the solver, nexttouch's directive (its engine "
          "start-up is measured apart, below) or the oracle's ``move_pages``; *pages moved*: "
          "the engine's count."]
    L.append("")
    for key, where in (("_cmp", ""),
                       ("_cmp4", ", 4 nodes, 4 threads (4 vCPUs on 2 host cores)")):
        for p in SOL_PROGS:
            c = S.get(p, {}).get(key)
            if not c:
                continue
            nt, orc = c["nexttouch"], c["oracle"]
            L.append("* ``%s``%s, nexttouch against the oracle (per repetition, each against "
                     "the same repetition's run without placement): one-time overhead "
                     "nexttouch %.1f ms = %.1f ideal iterations, oracle %.1f ms = %.1f "
                     "(medians of %d repetitions); nexttouch / oracle **%.2f** (per "
                     "repetition median %.2f, min-max %.2f-%.2f), without the engine's "
                     "start-up (%.1f ms) %.2f (per repetition %.2f-%.2f); break-even "
                     "(R = %.0f) nexttouch %s, oracle %s iterations; "
                     "local share after one iteration nexttouch %s, oracle %s. nexttouch: %s "
                     "pages armed, %s moved in %s faults, engine timers arm %s ms, faults %s ms "
                     "(summed over the threads); oracle: %s ``move_pages`` calls, %s ms; TLB "
                     "shoot-downs per process nexttouch %s, oracle %s, none %s." % (
                         p, where, nt["O"], nt["O_it"], orc["O"], orc["O_it"], c["n"],
                         c["ratio"], c["per_med"], c["min"], c["max"], nt["startup_ms"] or 0,
                         c["warm"],
                         c["warm_min"], c["warm_max"], NUMA_RATIO, fmt(nt["be"], ".1f"),
                         fmt(orc["be"], ".1f"), fmt(nt["f1"]), fmt(orc["f1"]),
                         fmt(nt["armed"], ".0f"), fmt(nt["migrated"], ".0f"),
                         fmt(nt["faults"], ".0f"), fmt(nt["arm_ms"], ".1f"),
                         fmt(nt["fault_ms"], ".1f"), fmt(orc["calls"], ".0f"),
                         fmt(orc["move_ms"], ".1f"), fmt(nt["tlb"], ".0f"),
                         fmt(orc["tlb"], ".0f"), fmt(c["tlb_none"], ".0f")))
    for p in SOL_PROGS:
        a = S.get(p, {})
        if "_over" in a:
            be = a["_be"]
            L.append("* ``%s``: nexttouch's overhead O = %.1f ms (emulated) = %.1f ideal "
                     "iterations; break-even against no placement after %s (R = 1.5), %s "
                     "(R = 2), %s (R = 3) iterations." % (
                         p, a["_over"], a["_over"] / a["_tideal"], fmt(be.get(1.5), ".1f"),
                         fmt(be.get(2.0), ".1f"), fmt(be.get(3.0), ".1f")))
    for p in SOL_PROGS:
        an = S.get(p, {}).get("_autonuma")
        if an:
            L.append("* ``%s``, AutoNUMA (numa_balancing 1, %d run(s)): reached nexttouch's "
                     "local share after its first iteration (%.3f) in %d of %d runs%s; local "
                     "share at the end %s." % (
                         p, an["n"], an["target"], an["reached"], an["n"],
                         ", after iteration %.0f, %.2f s of solver time (median)" % (
                             an["it"], an["solver_s"]) if an["it"] is not None else "",
                         fmt(an["final"])))
    sw = sol_sweep(runs)
    if sw["n"]:
        L.append("* OMP_PROC_BIND × OMP_PLACES (2 and 4 nodes, one run each): %d nexttouch runs, "
                 "local share of bound threads ≥ %s, unbound %s-%s; pages per node and local "
                 "share as ideal initialisation's in %d of %d." % (
                     sw["n"], fmt(min(sw["bound"]) if sw["bound"] else None),
                     fmt(min(sw["free"]) if sw["free"] else None),
                     fmt(max(sw["free"]) if sw["free"] else None), sw["agree"], sw["n"]))
    for name, alt in (("solvers-iterations.png", "time per iteration by variant (emulated)"),
                      ("solvers-locality.png", "local share after 1 and after k iterations"),
                      ("solvers-ratios.png", "time per iteration / ideal, measured and "
                       "modelled; break-even against R"),
                      ("solvers-autonuma.png", "AutoNUMA's local share over time"),
                      ("solvers-bind.png", "pages per node for each OMP_PROC_BIND x OMP_PLACES")):
        L += [""] * (L[-1] != "") + rst_image(name, alt)
    L += ["Data: %s (one row per run, the configuration as ``#`` lines)." %
          rst_file("solvers-runs.csv")]
    return L


def page_readonly(F):
    meds = F["ro"]
    if not meds:
        return ["No results."]
    L = ["Medians over the runs; *steady*: median iteration after the first, *mean*: every "
         "iteration, both / ideal's in the same guest; *setup*: (first − steady) in ideal "
         "iterations; *local*: bytes of ``A`` and ``b`` read from the reader's node:", ""]
    L += rst_table(["where", "nodes", "variant", "runs", "steady (ms)", "min-max",
                    "steady / ideal", "mean / ideal", "setup", "% local", "replicas (MiB)",
                    "µs / page", "floor µs / page"],
                   [[x["where"], x["nodes"], x["variant"], x["runs"], fmt(x["steady"], ".1f"),
                     "%.1f-%.1f" % x["steady_range"], fmt(x["steady_ideal"], ".2f"),
                     fmt(x["mean_ideal"], ".2f"), fmt(x["setup"], ".1f"),
                     fmt(None if x["local"] is None else 100 * x["local"], ".2f"),
                     fmt(x["replica_mib"], ".1f"), fmt(x["us_page"], ".2f"),
                     fmt(x["floor"], ".2f")] for x in meds],
                   right=(1, 3, 4, 6, 7, 8, 9, 10, 11, 12))
    T = F["ro_t"]
    for (where, nodes), t in T.items():
        x, y = t["ro_ideal"], t["nt_oracle"]
        if x:
            L += ["", "* %s, %s node(s): ``readonly`` / ``ideal``, steady iteration, per "
                  "repetition: median **%.3f** over %d (min-max %.3f-%.3f)%s." % (
                      "guest" if where == "guest" else "native", nodes, x["median"], x["n"],
                      x["min"], x["max"], "; nexttouch's set-up / the oracle's: median %.2f "
                      "(min-max %.2f-%.2f)" % (y["median"], y["min"], y["max"]) if y else "")]
    rc = F["rc"]
    if rc:
        L += ["", "Per-region cost of ``readonly`` with cached, unchanged items "
              "(``bench/region_cost.c``: each item %s pages, every thread takes its node's "
              "pointers to all items in one call and reads one value through each; blocks of "
              "regions with and without readonly alternating; per block pair and region, *µs "
              "per region*: the time in readonly's calls (begin and end, and the slowest "
              "thread's loop less its loop over the originals), *whole region*: the region's time with readonly less without; the "
              "median over the pairs and its min-max; *ideal iterations*: µs per region / the "
              "dense Jacobi's steady ideal iteration at n = %s in the same guest or on the "
              "host):" % (rc[0].get("item_pages"),
                          (F["ro_rows"] or [{}])[0].get("n", "?")), ""]
        L += rst_table(["where", "nodes", "threads", "items", "µs per region", "min-max (µs)",
                        "ideal iterations", "whole region (µs)", "min-max (µs)",
                        "plain region (µs)"],
                       [[r["where"], r.get("nodes"), r.get("threads"), r.get("items"),
                         "%.1f" % r["cost"], "%.1f-%.1f" % (r["lo"], r["hi"]),
                         fmt(r["iters"], ".4f"), fmt(r["wall"], ".1f"),
                         "%s-%s" % (fmt(r["wlo"], ".1f"), fmt(r["whi"], ".1f")),
                         "%.2f" % (r["plain"] or 0)] for r in rc],
                       right=(1, 2, 3, 4, 6, 7, 9))
    L += ["", "Data: %s, %s." % (rst_file("readonly.csv"), rst_file("region-cost.csv"))]
    return L


def page_curves(F):
    C = F["curves"]
    if not (C["size"] or C["ranges"] or C["threads"]):
        return ["No results."]
    L = ["How each cost grows (the exponent e of a least-squares fit of log time against "
         "log x, and the segment whose local exponent departs most from it):", ""]
    L += ["* " + l for l in curves_lines(C)]
    rows = []
    for v, pts in C["size"].items():
        for m, t, lo, hi, n in pts:
            rows.append([v, m, n, "%.1f" % t, "%.1f-%.1f" % (lo, hi),
                         "%.2f" % (t * 1e3 / (m * 256))])
    if rows:
        L += ["", "Distribution (2-node guest, 2 threads, emulated; half of the pages move):", ""]
        L += rst_table(["variant", "MiB", "runs", "time (ms)", "min-max", "µs per page"],
                       rows, right=(1, 2, 3, 5))
    rows = []
    for (where, how), pts in C["ranges"].items():
        for p in pts:
            rows.append(["native" if where == "host" else "guest", how, p["n"], p["runs"],
                         "%.0f" % p["request"], "%.0f-%.0f" % p["req_range"],
                         "%.0f" % p["arm"], "%.0f-%.0f" % p["arm_range"],
                         "%.0f" % p["armed"], "%.0f" % p["fail_arm"]])
    if rows:
        L += ["", "Request and arming against the number of disjoint one-page ranges (µs; "
              "native: this host, ``KMP_NEXTTOUCH_FORCE=1``; guest: emulated):", ""]
        L += rst_table(["where", "request", "ranges", "runs", "request (µs)", "min-max",
                        "arming (µs)", "min-max", "armed", "fail_arm"], rows,
                       right=(2, 3, 4, 6, 8, 9))
    L += [""] + rst_image("curves.png", "distribution time against size; request and arming "
                          "cost against ranges; readonly's per-region cost against threads")
    L += ["Data: %s, %s, %s." % (rst_file("curves-size.csv"), rst_file("curves-ranges.csv"),
                                 rst_file("curves-threads.csv"))]
    return L


def page_section(d, F, summary):
    L = [BEGIN, ""]
    L += ["Results of the last run", "=======================", ""]
    L += ["Generated by ``bench/report.py page`` from the last ``make bench-suite`` run; "
          "the files are in ``bench/results/``.", ""]
    L += page_run(d, F)
    L += rst_heading("Summary", "-")
    L += ["As printed (%s):" % rst_file("summary.txt"), "", ".. code-block:: text", ""]
    L += ["   " + l if l else "" for l in summary if l != ""]
    L += rst_heading("Targets", "-")
    L += rst_table(["target", "figure", "spread", "runs", "met"], page_targets(F))
    for title, fn in (("Distribution", page_dist), ("Placement accuracy", page_accuracy),
                      ("Jacobi and CG", page_solvers), ("readonly", page_readonly),
                      ("Cost curves", page_curves)):
        L += rst_heading(title + ": results", "-")
        L += fn(F)
    L += rst_heading("The C library wrappers: results", "-")
    L += page_wrappers(d)
    L += ["", END]
    return L


def cmd_page(d):
    F = figures(d)
    summary = read(os.path.join(d, "summary.txt")).splitlines() or summary_text(d, F)
    missing = [src for src in SHOWN.values() if not os.path.exists(os.path.join(d, src))]
    if missing:
        print("page: missing %s; bench/results/ and the page left as they were" % missing)
        return 1
    # Only the suite's files: bench/results/ also holds other reports'
    # (report_kernels.py's kernels.csv).
    os.makedirs(RESULTS, exist_ok=True)
    for name, src in SHOWN.items():
        shutil.copy(os.path.join(d, src), os.path.join(RESULTS, name))
    text = open(PAGE).read()
    if BEGIN not in text or END not in text:
        print("page: %s has no '%s' ... '%s' section" % (PAGE, BEGIN, END))
        return 1
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    open(PAGE, "w").write(head + "\n".join(page_section(d, F, summary)) + tail)
    print("page: %s and %s (%d files)" % (os.path.relpath(PAGE, TOP),
                                          os.path.relpath(RESULTS, TOP) + "/", len(SHOWN)))
    return 0

SCALE_PLACED_TARGET = 0.99


def cmd_scale(d):
    """bench/scale.sh: arm_ranges at about a million pages in the 2-node
    guest: pages armed and placed on their toucher's node, request per
    range, arming against one mprotect per range (emulated)."""
    o = outdir(d, "scale")
    text = read(log_path(d, "scale-2n"))
    bad = [] if part_rc(d, "scale-2n") == 0 else [
        "scale-2n: guest part exit %s" % part_rc(d, "scale-2n")]
    L = []
    for line in text.splitlines():
        if line.startswith("SCALE_FAIL"):
            bad.append(line)
        if line.startswith("AR_MAP_COUNT"):
            f = kv(line)
            L.append("vm.max_map_count %s, needed %s, raised for the run: %s" % (
                f.get("limit"), f.get("needed"), f.get("raised")))
        if not line.startswith("AR_RUN "):
            continue
        r = kv(line)
        n, total = num(r["ranges"]), num(r["total_pages"])
        placed = num(r.get("placed", "-"))
        arm_ratio = (num(r["arm_us"]) / num(r["mprotect_us"])
                     if num(r.get("mprotect_us", "-1")) and num(r["mprotect_us"]) > 0
                     else None)
        L.append("%s, rep %s: %d ranges of %s pages (%d pages): armed %s, fail_arm %s, "
                 "placed on the toucher's node %s (target >= %.0f %%: %s); request "
                 "%.2f us per range; arming %s one mprotect per range; faults %s "
                 "(emulated)" % (
                     r["how"], r["rep"], n, r["pages"], total, r["armed"], r["fail_arm"],
                     "%.2f %%" % (100 * placed) if placed is not None else "-",
                     100 * SCALE_PLACED_TARGET,
                     "met" if placed is not None and placed >= SCALE_PLACED_TARGET
                     else "MISSED",
                     num(r["request_us"]) / n,
                     "%.2f times" % arm_ratio if arm_ratio else "-", r["faults"]))
        if r.get("ok") != "yes":
            bad.append("arm_ranges %s: wrong counts or data" % r["how"])
    if not any(l.startswith(("directive", "api")) for l in L):
        bad.append("scale-2n: nothing ran")
    out = "\n".join(L)
    open(os.path.join(o, "scale.txt"), "w").write(out + "\n")
    print(out)
    for b in bad:
        print("scale: " + b)
    return 1 if bad else 0
