#!/usr/bin/env python3
"""Summarise bench/results/nexttouch_dist.csv: medians per variant, the
target ratios, the native per-page fault-path costs, and a PNG plot.

usage: report.py RESULTS.csv [PLOT.png]
"""
import csv
import statistics
import sys

TARGET_OURS_ORACLE = 1.25   # ours-default / oracle: at most
TARGET_REF_OURS = 7.0       # reference / ours-default: at least
ORDER = ["ours-default", "ours-exact", "ours-thp", "reference", "reference-nomove",
         "oracle", "none"]
LABEL = {
    "ours-default": "ours\n(default:\nadaptive)",
    "ours-exact": "ours\nWINDOW=1\n(exact)",
    "ours-thp": "ours\nTHP\n(MADV_HUGEPAGE)",
    "reference": "reference\n(2008: mprotect\n+SIGSEGV+\nmove_pages/page)",
    "reference-nomove": "reference\nwithout\nmove_pages\n(fault+mprotect)",
    "oracle": "oracle\n(move_pages\nown part,\nbatches)",
    "none": "none\n(no migration,\nfloor)",
}


def load(path):
    meta, rows = [], []
    lines = []
    with open(path) as f:
        for l in f:
            if l.startswith("#"):
                meta.append(l[1:].strip())
            else:
                lines.append(l)
    for r in csv.DictReader(lines):
        for k in ("time_ms", "arm_ms", "fault_ms", "disarm_ms", "local_pct"):
            r[k] = float(r[k])
        for k in ("rep", "mib", "pages", "threads", "nodes", "faults", "batches",
                  "migrated", "already_local"):
            r[k] = int(r[k])
        rows.append(r)
    return meta, rows


def load_phases(path):
    """nexttouch_dist-phases.csv next to the results: where,variant,rep,k=v,..."""
    import os
    p = path[:-4] + "-phases.csv" if path.endswith(".csv") else None
    out = {}
    if not p or not os.path.exists(p):
        return out
    with open(p) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) < 4:
                continue
            d = {k: float(v) for k, v in (x.split("=") for x in parts[3:])}
            out.setdefault((parts[0], parts[1]), []).append(d)
    return out


def medians(rows, where):
    out = {}
    extra = sorted({r["variant"] for r in rows} - set(ORDER))  # profiling variants
    for v in ORDER + extra:
        rs = [r for r in rows if r["where"] == where and r["variant"] == v]
        if rs:
            med = lambda k: statistics.median(r[k] for r in rs)
            out[v] = {
                "time": med("time_ms"), "times": [r["time_ms"] for r in rs],
                "arm": med("arm_ms"), "fault": med("fault_ms"), "disarm": med("disarm_ms"),
                "faults": med("faults"), "batches": med("batches"),
                "migrated": med("migrated"), "local": min(r["local_pct"] for r in rs),
                "ok": all(r["checksum"] == "ok" for r in rs),
                "pages": rs[0]["pages"], "threads": rs[0]["threads"], "n": len(rs),
            }
    return out


def main():
    path = sys.argv[1]
    png = sys.argv[2] if len(sys.argv) > 2 else None
    meta, rows = load(path)
    g = medians(rows, "guest-tcg")
    h = medians(rows, "host-native")
    print("\n".join("# " + m for m in meta))

    lines = []
    if g:
        lines.append("emulated (guest-tcg), medians of %d:" % max(v["n"] for v in g.values()))
        lines.append("  %-13s %10s %8s %8s %7s %11s %10s %9s %7s %s" % (
            "variant", "time ms", "arm ms", "faults", "batches", "moved/batch",
            "fault ms*", "disarm ms", "local%", "data"))
        for v, m in g.items():
            ppb = m["migrated"] / m["batches"] if m["batches"] else 0
            lines.append("  %-13s %10.1f %8.1f %8d %7d %11.1f %10.1f %9.1f %7.1f %s" % (
                v, m["time"], m["arm"], m["faults"], m["batches"], ppb, m["fault"],
                m["disarm"], m["local"], "ok" if m["ok"] else "WRONG"))
        lines.append("  (* summed over threads: ours = time in the fault path, "
                     "oracle = time in move_pages)")
        ratios = []
        if "ours-default" in g and "oracle" in g:
            r = g["ours-default"]["time"] / g["oracle"]["time"]
            ratios.append("ours/oracle = %.2f (target <= %.2f: %s)" % (
                r, TARGET_OURS_ORACLE, "met" if r <= TARGET_OURS_ORACLE else "MISSED"))
        if "reference" in g and "ours-default" in g:
            r = g["reference"]["time"] / g["ours-default"]["time"]
            ratios.append("reference/ours = %.2f (target >= %.1f: %s)" % (
                r, TARGET_REF_OURS, "met" if r >= TARGET_REF_OURS else "MISSED"))
        for v in ("ours-exact", "ours-thp"):
            if v in g and "oracle" in g and "reference" in g:
                ratios.append("%s: /oracle = %.2f, reference/it = %.2f" % (
                    v, g[v]["time"] / g["oracle"]["time"],
                    g["reference"]["time"] / g[v]["time"]))
        if "oracle" in g:
            ratios.append("relative to oracle: " + ", ".join(
                "%s %.2f" % (v, m["time"] / g["oracle"]["time"])
                for v, m in g.items() if v not in ("oracle", "none")))
        lines += ["  " + r for r in ratios]
    if h:
        lines.append("native (host-native, one node, nothing moves), medians of %d:" %
                     max(v["n"] for v in h.values()))
        floor = h.get("none", {}).get("time", 0.0)
        for v, m in h.items():
            if v in ("none", "oracle"):
                continue
            per_page = (m["time"] - floor) * 1e3 / m["pages"]
            per_fault = m["fault"] * 1e3 / m["faults"] if m["faults"] and m["fault"] else 0
            lines.append("  %-13s %9.1f ms  %6.2f us/page over the no-migration loop%s" % (
                v, m["time"], per_page,
                ", %.2f us per fault in the handler (%d faults)" % (per_fault, m["faults"])
                if per_fault else ""))
        if "reference" in h and "ours-exact" in h:
            re_ = (h["reference"]["time"] - floor) / max(h["ours-exact"]["time"] - floor, 1e-9)
            lines.append("  reference/ours-exact per page (one page per fault): %.2f" % re_)
        if "reference-nomove" in h and "ours-exact" in h:
            re_ = (h["reference-nomove"]["time"] - floor) / max(h["ours-exact"]["time"] - floor, 1e-9)
            lines.append("  reference-nomove/ours-exact per page (fault + mprotect only, "
                         "no move_pages call): %.2f" % re_)
    phases = load_phases(path)
    if phases:
        lines.append("phases (medians, ms): fork = request to first thread in the region "
                     "(arming), loop = each thread's loop with its faults, join = last "
                     "thread done to join end (disarming):")
        for where in ("guest-tcg", "host-native"):
            for v in ORDER + sorted(set(k[1] for k in phases) - set(ORDER)):
                ps = phases.get((where, v))
                if not ps:
                    continue
                med = lambda k: statistics.median(p[k] for p in ps if k in p)
                loops = sorted(k for k in ps[0] if k.startswith("loop"))
                lines.append("  %-11s %-13s fork %8.1f  %s  join %6.1f" % (
                    where, v, med("fork_ms"),
                    "  ".join("%s %8.1f" % (k[:-3], med(k)) for k in loops), med("join_ms")))
    print("\n".join(lines))

    if not png:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(16, 6.5), gridspec_kw={"width_ratios": [3, 2.2]})
    ax = axes[0]
    vs = [v for v in ORDER if v in g]  # the plot shows the main variants only
    any_g = next(iter(g.values())) if g else None
    colors = {"ours-default": "#1f77b4", "ours-exact": "#6baed6", "ours-thp": "#08519c",
              "reference": "#d62728", "reference-nomove": "#ff9896",
              "oracle": "#2ca02c", "none": "#7f7f7f"}
    for i, v in enumerate(vs):
        ax.bar(i, g[v]["time"], color=colors[v], alpha=0.85)
        ax.scatter([i] * len(g[v]["times"]), g[v]["times"], color="k", s=10, zorder=3)
        ax.text(i, g[v]["time"] * 1.08, "%.0f" % g[v]["time"], ha="center", fontsize=9)
    if "oracle" in g:
        y = TARGET_OURS_ORACLE * g["oracle"]["time"]
        ax.axhline(y, color="#2ca02c", ls="--", lw=1)
        ax.text(len(vs) - 0.5, y * 1.05, "target: ours <= %.2f x oracle" % TARGET_OURS_ORACLE,
                color="#2ca02c", ha="right", fontsize=9)
    if "reference" in g:
        y = g["reference"]["time"] / TARGET_REF_OURS
        ax.axhline(y, color="#d62728", ls=":", lw=1)
        ax.text(len(vs) - 0.5, y * 1.05, "target: ours <= reference / %.0f" % TARGET_REF_OURS,
                color="#d62728", ha="right", fontsize=9)
    ax.set_xticks(range(len(vs)))
    ax.set_xticklabels([LABEL[v] for v in vs], fontsize=8)
    ax.set_yscale("log")
    box = []
    if "ours-default" in g and "oracle" in g:
        r = g["ours-default"]["time"] / g["oracle"]["time"]
        box.append("ours / oracle = %.2f  (target <= %.2f: %s)" % (
            r, TARGET_OURS_ORACLE, "met" if r <= TARGET_OURS_ORACLE else "missed"))
    if "reference" in g and "ours-default" in g:
        r = g["reference"]["time"] / g["ours-default"]["time"]
        box.append("reference / ours = %.1f  (target >= %.0f: %s)" % (
            r, TARGET_REF_OURS, "met" if r >= TARGET_REF_OURS else "missed"))
    if box:
        ax.text(0.02, 0.98, "\n".join(box), transform=ax.transAxes, va="top",
                fontsize=10, bbox=dict(boxstyle="round", fc="white", ec="0.6"))
    ax.set_ylabel("ms (log scale): request + one pass of the loop")
    if any_g:
        ax.set_title("EMULATED (QEMU/TCG guest, 2 NUMA nodes, %d threads): %d MiB, %d pages;\n"
                     "median of %d (dots: each run); compare as ratios only" % (
                         any_g["threads"], any_g["pages"] * 4096 >> 20, any_g["pages"], any_g["n"]),
                     fontsize=10)
    ax = axes[1]
    if h:
        floor = h.get("none", {}).get("time", 0.0)
        hv = [v for v in ("ours-default", "ours-exact", "ours-thp", "reference",
                          "reference-nomove") if v in h]
        vals = [(h[v]["time"] - floor) * 1e3 / h[v]["pages"] for v in hv]
        for i, (v, y) in enumerate(zip(hv, vals)):
            ax.bar(i, max(y, 0.01), color=colors[v], alpha=0.85)
            ax.text(i, max(y, 0.01) * 1.1, "%.2f" % y if y >= 0.01 else "~0",
                    ha="center", fontsize=9)
        ax.set_xticks(range(len(hv)))
        ax.set_xticklabels([LABEL[v] for v in hv], fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("us per page (log scale)")
        any_h = next(iter(h.values()))
        hload = [m.split("load average at start")[1].strip() for m in meta
                if "load average at start" in m]
        ax.set_title("NATIVE (this host, 1 node: nothing moves): fault-path cost\n"
                     "per page over the plain loop, %d MiB, %d threads, forced arming%s" % (
                         any_h["pages"] * 4096 >> 20, any_h["threads"],
                         "\n(host load average %s)" % hload[0] if hload else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    print("plot: %s" % png)


if __name__ == "__main__":
    main()
