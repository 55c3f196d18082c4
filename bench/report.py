#!/usr/bin/env python3
"""Summarise bench/results/nexttouch_dist.csv: medians per variant, the
target ratios, the native per-page fault-path costs, and a PNG plot.

ours/oracle is the median of the ratios of *pairs*: the runs of ours-default
and of the oracle in the same repetition of the same process (back to back,
in alternating order), with the interquartile range of those ratios and a
bootstrap 95 % confidence interval of their median. reference/ours is the
ratio of the medians at the size where the reference ran (guest rows can
have two sizes: the pairs' and the all-variants part's).

usage: report.py RESULTS.csv [PLOT.png]
"""
import csv
import random
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


def load_phases(path, rows):
    """nexttouch_dist-phases.csv next to the results: where,variant,rep,k=v,...
    grouped by (where, MiB, variant), the size from the row of the same run."""
    import os
    p = path[:-4] + "-phases.csv" if path.endswith(".csv") else None
    out = {}
    if not p or not os.path.exists(p):
        return out
    size = {(r["where"], r["variant"], r["rep"]): r["mib"] for r in rows}
    with open(p) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) < 4:
                continue
            d = {k: float(v) for k, v in (x.split("=") for x in parts[3:])}
            mib = size.get((parts[0], parts[1], int(parts[2])), 0)
            out.setdefault((parts[0], mib, parts[1]), []).append(d)
    return out


def medians(rows, where, mib=None):
    out = {}
    extra = sorted({r["variant"] for r in rows} - set(ORDER))  # profiling variants
    for v in ORDER + extra:
        rs = [r for r in rows if r["where"] == where and r["variant"] == v
              and (mib is None or r["mib"] == mib)]
        if rs:
            med = lambda k: statistics.median(r[k] for r in rs)
            out[v] = {
                "time": med("time_ms"), "times": [r["time_ms"] for r in rs],
                "arm": med("arm_ms"), "fault": med("fault_ms"), "disarm": med("disarm_ms"),
                "faults": med("faults"), "batches": med("batches"),
                "migrated": med("migrated"), "local": min(r["local_pct"] for r in rs),
                "ok": all(r["checksum"] == "ok" for r in rs),
                "pages": rs[0]["pages"], "threads": rs[0]["threads"], "n": len(rs),
                "mib": rs[0]["mib"],
            }
    return out


def quartiles(xs):
    if len(xs) < 2:
        return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def bootstrap_median_ci(xs, n=4000, level=0.95, seed=1):
    """Percentile bootstrap confidence interval of the median."""
    rng = random.Random(seed)
    ms = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(n))
    lo = ms[int((1 - level) / 2 * n)]
    hi = ms[min(n - 1, int((1 + level) / 2 * n))]
    return lo, hi


def figures(rows, where="guest-tcg"):
    """The headline figures of the guest rows: the paired ours/oracle ratios
    at the size with the most pairs, reference/ours where the reference ran."""
    f = {}
    by = {}
    for r in rows:
        if r["where"] == where and r["variant"] in ("ours-default", "oracle"):
            by.setdefault((r["mib"], r["rep"]), {})[r["variant"]] = r["time_ms"]
    per_mib = {}
    for (mib, rep), d in sorted(by.items()):
        if len(d) == 2:
            per_mib.setdefault(mib, []).append(
                (rep, d["ours-default"] / d["oracle"], d["ours-default"], d["oracle"]))
    if per_mib:
        mib = max(per_mib, key=lambda m: (len(per_mib[m]), m))
        ps = per_mib[mib]
        ratios = [p[1] for p in ps]
        q1, q3 = quartiles(ratios)
        lo, hi = bootstrap_median_ci(ratios)
        f["pairs"] = {
            "mib": mib, "n": len(ratios), "ratios": ratios, "reps": [p[0] for p in ps],
            "median": statistics.median(ratios), "q1": q1, "q3": q3,
            "min": min(ratios), "max": max(ratios), "ci": (lo, hi),
            "ratio_of_medians": statistics.median(p[2] for p in ps) /
            statistics.median(p[3] for p in ps),
            "met": statistics.median(ratios) <= TARGET_OURS_ORACLE,
        }
    ref_mibs = sorted({r["mib"] for r in rows if r["where"] == where
                       and r["variant"] == "reference"})
    if ref_mibs:
        m = medians(rows, where, ref_mibs[-1])
        if "ours-default" in m:
            r = m["reference"]["time"] / m["ours-default"]["time"]
            f["ref_ours"] = {
                "mib": ref_mibs[-1], "ratio": r, "n": m["reference"]["n"],
                "n_ours": m["ours-default"]["n"],
                "worst": min(m["reference"]["times"]) / max(m["ours-default"]["times"]),
                "met": r >= TARGET_REF_OURS,
            }
    h = medians(rows, "host-native")
    if h and "none" in h:
        floor = h["none"]["time"]
        f["native"] = {v: (m["time"] - floor) * 1e3 / m["pages"] for v, m in h.items()
                       if v not in ("none", "oracle")}
    return f


def main():
    path = sys.argv[1]
    png = sys.argv[2] if len(sys.argv) > 2 else None
    meta, rows = load(path)
    g = medians(rows, "guest-tcg")
    h = medians(rows, "host-native")
    print("\n".join("# " + m for m in meta))

    lines = []
    gmibs = sorted({r["mib"] for r in rows if r["where"] == "guest-tcg"})
    for mib in gmibs:
        g = medians(rows, "guest-tcg", mib)
        lines.append("emulated (guest-tcg), %d MiB, medians over the runs:" % mib)
        lines.append("  %-13s %4s %10s %8s %8s %7s %11s %10s %9s %7s %s" % (
            "variant", "runs", "time ms", "arm ms", "faults", "batches", "moved/batch",
            "fault ms*", "disarm ms", "local%", "data"))
        for v, m in g.items():
            ppb = m["migrated"] / m["batches"] if m["batches"] else 0
            lines.append("  %-13s %4d %10.1f %8.1f %8d %7d %11.1f %10.1f %9.1f %7.1f %s" % (
                v, m["n"], m["time"], m["arm"], m["faults"], m["batches"], ppb, m["fault"],
                m["disarm"], m["local"], "ok" if m["ok"] else "WRONG"))
        lines.append("  (* summed over threads: ours = time in the fault path, "
                     "oracle = time in move_pages)")
        ratios = []
        for v in ("ours-exact", "ours-thp"):
            if v in g and "oracle" in g and "reference" in g:
                ratios.append("%s: /oracle = %.2f, reference/it = %.2f" % (
                    v, g[v]["time"] / g["oracle"]["time"],
                    g["reference"]["time"] / g[v]["time"]))
        if "oracle" in g:
            ratios.append("medians relative to oracle's: " + ", ".join(
                "%s %.2f" % (v, m["time"] / g["oracle"]["time"])
                for v, m in g.items() if v not in ("oracle", "none")))
        lines += ["  " + r for r in ratios]
    fig = figures(rows)
    if "pairs" in fig:
        p = fig["pairs"]
        lines.append(
            "ours/oracle (emulated, %d MiB, %d pairs run back to back in alternating order):"
            % (p["mib"], p["n"]))
        lines.append(
            "  median of the pairs' ratios %.2f (target <= %.2f: %s); interquartile range "
            "%.2f-%.2f, min %.2f, max %.2f; bootstrap 95%% CI of the median %.2f-%.2f; "
            "ratio of the medians %.2f" % (
                p["median"], TARGET_OURS_ORACLE, "met" if p["met"] else "MISSED",
                p["q1"], p["q3"], p["min"], p["max"], p["ci"][0], p["ci"][1],
                p["ratio_of_medians"]))
        lines.append("  per pair: " + " ".join("%.2f" % x for x in p["ratios"]))
    if "ref_ours" in fig:
        r = fig["ref_ours"]
        lines.append(
            "reference/ours (emulated, %d MiB, medians of %d and %d) = %.1f (target >= %.1f: %s); "
            "slowest ours against fastest reference %.1f" % (
                r["mib"], r["n"], r["n_ours"], r["ratio"], TARGET_REF_OURS,
                "met" if r["met"] else "MISSED", r["worst"]))
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
    phases = load_phases(path, rows)
    if phases:
        lines.append("phases (medians, ms): fork = request to first thread in the region "
                     "(arming), loop = each thread's loop with its faults, join = last "
                     "thread done to join end (disarming):")
        for where, mib in sorted({k[:2] for k in phases}, reverse=True):
            for v in ORDER + sorted(set(k[2] for k in phases) - set(ORDER)):
                ps = phases.get((where, mib, v))
                if not ps:
                    continue
                med = lambda k: statistics.median(p[k] for p in ps if k in p)
                loops = sorted(k for k in ps[0] if k.startswith("loop"))
                lines.append("  %-11s %4d MiB %-13s fork %8.1f  %s  join %6.1f" % (
                    where, mib, v, med("fork_ms"),
                    "  ".join("%s %8.1f" % (k[:-3], med(k)) for k in loops), med("join_ms")))
    print("\n".join(lines))

    if not png:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ref_mib = fig.get("ref_ours", {}).get("mib", gmibs[-1] if gmibs else None)
    g = medians(rows, "guest-tcg", ref_mib) if ref_mib else {}
    pairs = fig.get("pairs")
    fig, axes = plt.subplots(1, 3, figsize=(21, 6.5),
                             gridspec_kw={"width_ratios": [3, 1.6, 2.2]})
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
    if "reference" in g:
        y = g["reference"]["time"] / TARGET_REF_OURS
        ax.axhline(y, color="#d62728", ls=":", lw=1)
        ax.text(len(vs) - 0.5, y * 1.05, "target: ours <= reference / %.0f" % TARGET_REF_OURS,
                color="#d62728", ha="right", fontsize=9)
    ax.set_xticks(range(len(vs)))
    ax.set_xticklabels([LABEL[v] for v in vs], fontsize=8)
    ax.set_yscale("log")
    if vs:  # room above the tallest bar for its label and the box
        ax.set_ylim(top=max(max(g[v]["times"]) for v in vs) * 6)
    box = []
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
                     "median of %s runs (dots: each run); compare as ratios only" % (
                         any_g["threads"], any_g["pages"] * 4096 >> 20, any_g["pages"],
                         "-".join(sorted({str(g[v]["n"]) for v in vs}, key=int))),
                     fontsize=10)
    ax = axes[1]
    if pairs:
        xs = pairs["ratios"]
        ax.boxplot([xs], widths=0.5, whis=(0, 100), medianprops=dict(color="#1f77b4", lw=2))
        jit = [1 + 0.12 * ((i % 5) - 2) / 2 for i in range(len(xs))]
        ax.scatter(jit, xs, color="k", s=14, zorder=3)
        ax.axhline(TARGET_OURS_ORACLE, color="#2ca02c", ls="--", lw=1)
        ax.text(1.45, TARGET_OURS_ORACLE, "target <= %.2f" % TARGET_OURS_ORACLE,
                color="#2ca02c", ha="right", va="bottom", fontsize=9)
        ax.axhline(1.0, color="0.6", ls=":", lw=1)
        lo, hi = pairs["ci"]
        ax.errorbar([1.32], [pairs["median"]], yerr=[[pairs["median"] - lo], [hi - pairs["median"]]],
                    fmt="o", color="#1f77b4", capsize=5)
        ax.text(1.36, pairs["median"], "median %.2f\n95%% CI\n%.2f-%.2f" % (pairs["median"], lo, hi),
                fontsize=9, va="center")
        ax.set_xlim(0.6, 1.75)
        ax.set_xticks([1])
        ax.set_xticklabels(["ours / oracle\nper pair"])
        ax.set_ylim(min(0.6, min(xs) - 0.05), max(1.5, max(xs) + 0.05))
        ax.set_title("EMULATED: ours / oracle, %d pairs, %d MiB\n(each pair back to back, "
                     "order alternating;\nbox: quartiles, whiskers: min-max)" % (
                         pairs["n"], pairs["mib"]), fontsize=10)
    ax = axes[2]
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
    plt.tight_layout()
    plt.savefig(png, dpi=90)
    print("plot: %s" % png)


if __name__ == "__main__":
    main()
