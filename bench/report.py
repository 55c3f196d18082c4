#!/usr/bin/python3
"""The benchmarks' report: tables, CSVs, plots, the suite's summary and the
results section of docs/Benchmarks.rst, from a run directory of bench/lib.sh
(config.txt, logs/NAME.log and NAME.rc of tools/guest-run, native logs).

usage: bench/report.py COMMAND DIR

  dist DIR       DIR/dist/: nexttouch_dist.csv, nexttouch_dist-phases.csv,
                 nexttouch_dist-summary.txt (printed), nexttouch_dist.png
  accuracy DIR   DIR/accuracy/: accuracy.csv, accuracy-table.txt (printed)
  apps DIR       DIR/apps/apps-table.txt (printed)
  readonly DIR   DIR/readonly/: readonly.csv, readonly-table.txt (printed)
  solvers DIR    DIR/solvers/: solvers-{runs,iter,arrays}.csv,
                 solvers-summary.txt (printed), solvers-*.png
  solvers-profile DIR   bench/solvers.sh profile: DIR/solvers-profile/profile.txt
                 (printed)
  curves DIR     DIR/curves/: curves-{size,ranges,threads}.csv,
                 curves-summary.txt (printed), curves.png
  wrappers DIR   DIR/wrappers/: wrappers.csv, wrappers-summary.txt (printed)
  summary DIR    every target met or missed with its figure: DIR/summary.txt
                 (printed); needs the six families' reports
  page DIR       bench/results/ afresh (the files docs/Benchmarks.rst shows)
                 and the page's generated results section

Each family's command exits 1 if one of its runs failed (a guest part's
exit status, a verification, a data check); summary and page exit 0 (a
missed target shows in the summary).

Every time measured in a guest is emulated (QEMU/TCG): only ratios between
variants of one guest run mean something. Native figures are this host's.
"""
import csv
import os
import random
import re
import shutil
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(TOP, "bench", "results")
PAGE = os.path.join(TOP, "docs", "Benchmarks.rst")

# Targets.
TARGET_OURS_ORACLE = 1.25   # ours (default) / oracle: at most
TARGET_REF_OURS = 7.0       # reference / ours (default): at least
ACC_TARGET = {"block": 99.0}   # % of pages on their first toucher's node; others:
ACC_TARGET_OTHER = 95.0
BATCHWIN_TARGET = 2.0       # faults/page of two interleaved streams / one stream
NUMA_RATIO = 2.0            # the solvers' model: remote / local access time
TARGET_RO_IDEAL = 1.05      # readonly: steady time per iteration / ideal init's: at most
TARGET_SOLVER_ORACLE = 1.25 # solvers: nexttouch's one-time overhead / the oracle's: at most


# ---------------------------------------------------------------- run directory

def config(d):
    """config.txt as (lines, dict of the first '=')."""
    path = os.path.join(d, "config.txt")
    lines = [l.rstrip("\n") for l in open(path)] if os.path.exists(path) else []
    return lines, dict(l.split("=", 1) for l in lines if "=" in l)


def log_path(d, name):
    return os.path.join(d, "logs", name + ".log")


def part_rc(d, name):
    """A guest part's exit status (None: it did not run)."""
    p = os.path.join(d, "logs", name + ".rc")
    return int(open(p).read().strip()) if os.path.exists(p) else None


def part_names(d, prefix):
    """The guest parts of a family, in the order they ran."""
    names = []
    boots = os.path.join(d, "parts", "boots")
    for n in (open(boots).read().split() if os.path.exists(boots) else []):
        for p in open(os.path.join(d, "parts", "%sn.list" % n)).read().split():
            name = os.path.basename(p)[:-3]
            if name.startswith(prefix):
                names.append(name)
    return names


def read(path):
    return open(path, errors="replace").read() if os.path.exists(path) else ""


def kv(line):
    d = {}
    for tok in line.split()[1:]:
        if "=" in tok:
            k, v = tok.split("=", 1)
            d[k] = v
    return d


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, spec=".3f", none="-"):
    return none if x is None else format(x, spec)


def outdir(d, family):
    o = os.path.join(d, family)
    os.makedirs(o, exist_ok=True)
    return o


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot
    return matplotlib.pyplot


# ---------------------------------------------------------------- distribution

DIST_ORDER = ["ours-default", "ours-exact", "ours-thp", "reference", "reference-nomove",
              "oracle", "none"]
DIST_LABEL = {
    "ours-default": "ours\n(default:\nadaptive)",
    "ours-exact": "ours\nWINDOW=1\n(exact)",
    "ours-thp": "ours\nTHP\n(MADV_HUGEPAGE)",
    "reference": "reference\n(2008: mprotect\n+SIGSEGV+\nmove_pages/page)",
    "reference-nomove": "reference\nwithout\nmove_pages\n(fault+mprotect)",
    "oracle": "oracle\n(move_pages\nown part,\nbatches)",
    "none": "none\n(no migration,\nfloor)",
}
DIST_COLORS = {"ours-default": "#1f77b4", "ours-exact": "#6baed6", "ours-thp": "#08519c",
               "reference": "#d62728", "reference-nomove": "#ff9896",
               "oracle": "#2ca02c", "none": "#7f7f7f"}


def dist_load(path):
    meta, lines = [], []
    with open(path) as f:
        for l in f:
            if l.startswith("#"):
                meta.append(l[1:].strip())
            else:
                lines.append(l)
    rows = []
    for r in csv.DictReader(lines):
        for k in ("time_ms", "arm_ms", "fault_ms", "disarm_ms", "local_pct"):
            r[k] = float(r[k])
        for k in ("rep", "mib", "pages", "threads", "nodes", "faults", "batches",
                  "migrated", "already_local"):
            r[k] = int(r[k])
        rows.append(r)
    return meta, rows


def dist_phases(path, rows):
    """The phases CSV next to the results (where,variant,rep,k=v,...), grouped
    by (where, MiB, variant), the size from the row of the same run."""
    out = {}
    p = path[:-4] + "-phases.csv"
    if not os.path.exists(p):
        return out
    size = {(r["where"], r["variant"], r["rep"]): r["mib"] for r in rows}
    for line in open(p):
        parts = line.strip().split(",")
        if len(parts) < 4:
            continue
        d = {k: float(v) for k, v in (x.split("=") for x in parts[3:])}
        mib = size.get((parts[0], parts[1], int(parts[2])), 0)
        out.setdefault((parts[0], mib, parts[1]), []).append(d)
    return out


def dist_medians(rows, where, mib=None):
    out = {}
    extra = sorted({r["variant"] for r in rows} - set(DIST_ORDER))  # profile variants
    for v in DIST_ORDER + extra:
        rs = [r for r in rows if r["where"] == where and r["variant"] == v
              and (mib is None or r["mib"] == mib)]
        if rs:
            m = lambda k: statistics.median(r[k] for r in rs)
            out[v] = {
                "time": m("time_ms"), "times": [r["time_ms"] for r in rs],
                "arm": m("arm_ms"), "fault": m("fault_ms"), "disarm": m("disarm_ms"),
                "faults": m("faults"), "batches": m("batches"),
                "migrated": m("migrated"), "local": min(r["local_pct"] for r in rs),
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
    return ms[int((1 - level) / 2 * n)], ms[min(n - 1, int((1 + level) / 2 * n))]


def dist_figures(rows, where="guest-tcg"):
    """The target figures: ours/oracle is the median of the ratios of pairs
    (ours and the oracle in the same repetition of one process, back to back
    in alternating order) at the size with the most pairs, with their
    quartiles and a bootstrap 95 % CI of the median; reference/ours is the
    ratio of the medians where the reference ran; native: us per page over
    the no-migration loop."""
    f, by, per_mib = {}, {}, {}
    for r in rows:
        if r["where"] == where and r["variant"] in ("ours-default", "oracle"):
            by.setdefault((r["mib"], r["rep"]), {})[r["variant"]] = r["time_ms"]
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
        m = dist_medians(rows, where, ref_mibs[-1])
        if "ours-default" in m:
            r = m["reference"]["time"] / m["ours-default"]["time"]
            f["ref_ours"] = {
                "mib": ref_mibs[-1], "ratio": r, "n": m["reference"]["n"],
                "n_ours": m["ours-default"]["n"],
                "worst": min(m["reference"]["times"]) / max(m["ours-default"]["times"]),
                "met": r >= TARGET_REF_OURS,
            }
    h = dist_medians(rows, "host-native")
    if h and "none" in h:
        floor = h["none"]["time"]
        f["native"] = {v: (m["time"] - floor) * 1e3 / m["pages"] for v, m in h.items()
                       if v not in ("none", "oracle")}
        f["native_n"] = max(m["n"] for m in h.values())
        f["native_mib"] = next(iter(h.values()))["mib"]
    return f


def dist_write_csv(d, o):
    """nexttouch_dist.csv and -phases.csv from the guest part's log and the
    native log; returns the CSV's path, or None if the guest part gave no
    rows."""
    _, c = config(d)
    guest = read(log_path(d, "dist-2n"))
    native = read(log_path(d, "dist-host"))
    raw = (native + "\n" + guest).splitlines()
    rows = [l for l in raw if l.startswith("csv,") and not l.startswith("csv,where")]
    head = [l for l in raw if l.startswith("csv,where")]
    kernel = [l.split(",", 1)[1] for l in raw if l.startswith("guest-kernel,")]
    if not head or not any(",guest-tcg," in "," + l for l in rows):
        return None
    path = os.path.join(o, "nexttouch_dist.csv")
    with open(path, "w") as f:
        f.write("# nexttouch distribution benchmark (bench/dist.sh), %s\n" % c.get("date", "?"))
        f.write("# commit %s; libomp %s; %s\n" % (c.get("commit"), c.get("libomp"),
                                                c.get("compiler")))
        f.write("# host: %s, %s, load average at start %s\n" % (
            c.get("host_cpu"), c.get("host"), c.get("host_load_at_start")))
        f.write("# %s\n" % c.get("dist_params", ""))
        if native:
            f.write("# host-native rows: 1 NUMA node, KMP_NEXTTOUCH_FORCE=1 for the ours-* "
                    "rows (nothing moves), OMP_NUM_THREADS=2 OMP_PROC_BIND=spread "
                    "OMP_PLACES=cores\n")
        f.write("# guest-tcg rows: %s, 2 nodes, 2 vCPUs, guest kernel %s, %s\n" % (
            c.get("qemu"), kernel[0] if kernel else "?", c.get("guest", "").split(", ", 2)[-1]))
        f.write("# times are of request + one pass of the loop; guest times are emulated "
                "(compare within a run, as ratios)\n")
        f.write(head[0].split(",", 1)[1] + "\n")
        for l in rows:
            f.write(l.split(",", 1)[1] + "\n")
    with open(path[:-4] + "-phases.csv", "w") as f:
        for l in raw:
            if l.startswith("prof,"):
                f.write(l.split(",", 1)[1] + "\n")
    return path


def dist_text(path):
    meta, rows = dist_load(path)
    L = ["# " + m for m in meta]
    gmibs = sorted({r["mib"] for r in rows if r["where"] == "guest-tcg"})
    for mib in gmibs:
        g = dist_medians(rows, "guest-tcg", mib)
        L.append("emulated (guest-tcg), %d MiB, medians over the runs:" % mib)
        L.append("  %-13s %4s %10s %8s %8s %7s %11s %10s %9s %7s %s" % (
            "variant", "runs", "time ms", "arm ms", "faults", "batches", "moved/batch",
            "fault ms*", "disarm ms", "local%", "data"))
        for v, m in g.items():
            ppb = m["migrated"] / m["batches"] if m["batches"] else 0
            L.append("  %-13s %4d %10.1f %8.1f %8d %7d %11.1f %10.1f %9.1f %7.1f %s" % (
                v, m["n"], m["time"], m["arm"], m["faults"], m["batches"], ppb, m["fault"],
                m["disarm"], m["local"], "ok" if m["ok"] else "WRONG"))
        L.append("  (* summed over threads: ours = time in the fault path, "
                 "oracle = time in move_pages)")
        for v in ("ours-exact", "ours-thp"):
            if v in g and "oracle" in g and "reference" in g:
                L.append("  %s: /oracle = %.2f, reference/it = %.2f" % (
                    v, g[v]["time"] / g["oracle"]["time"], g["reference"]["time"] / g[v]["time"]))
        if "oracle" in g:
            L.append("  medians relative to oracle's: " + ", ".join(
                "%s %.2f" % (v, m["time"] / g["oracle"]["time"])
                for v, m in g.items() if v not in ("oracle", "none")))
    fig = dist_figures(rows)
    if "pairs" in fig:
        p = fig["pairs"]
        L.append("ours/oracle (emulated, %d MiB, %d pairs run back to back in alternating "
                 "order):" % (p["mib"], p["n"]))
        L.append("  median of the pairs' ratios %.2f (target <= %.2f: %s); interquartile range "
                 "%.2f-%.2f, min %.2f, max %.2f; bootstrap 95%% CI of the median %.2f-%.2f; "
                 "ratio of the medians %.2f" % (
                     p["median"], TARGET_OURS_ORACLE, "met" if p["met"] else "MISSED",
                     p["q1"], p["q3"], p["min"], p["max"], p["ci"][0], p["ci"][1],
                     p["ratio_of_medians"]))
        L.append("  per pair: " + " ".join("%.2f" % x for x in p["ratios"]))
    if "ref_ours" in fig:
        r = fig["ref_ours"]
        L.append("reference/ours (emulated, %d MiB, medians of %d and %d) = %.1f (target >= "
                 "%.1f: %s); slowest ours against fastest reference %.1f" % (
                     r["mib"], r["n"], r["n_ours"], r["ratio"], TARGET_REF_OURS,
                     "met" if r["met"] else "MISSED", r["worst"]))
    h = dist_medians(rows, "host-native")
    if h:
        L.append("native (host-native, one node, nothing moves), medians of %d:" %
                 max(v["n"] for v in h.values()))
        floor = h.get("none", {}).get("time", 0.0)
        for v, m in h.items():
            if v in ("none", "oracle"):
                continue
            per_page = (m["time"] - floor) * 1e3 / m["pages"]
            per_fault = m["fault"] * 1e3 / m["faults"] if m["faults"] and m["fault"] else 0
            L.append("  %-13s %9.1f ms  %6.2f us/page over the no-migration loop%s" % (
                v, m["time"], per_page,
                ", %.2f us per fault in the handler (%d faults)" % (per_fault, m["faults"])
                if per_fault else ""))
        for v, what in (("reference", "(one page per fault)"),
                        ("reference-nomove", "(fault + mprotect only, no move_pages call)")):
            if v in h and "ours-exact" in h:
                x = (h[v]["time"] - floor) / max(h["ours-exact"]["time"] - floor, 1e-9)
                L.append("  %s/ours-exact per page %s: %.2f" % (v, what, x))
    phases = dist_phases(path, rows)
    if phases:
        L.append("phases (medians, ms): fork = request to first thread in the region "
                 "(arming), loop = each thread's loop with its faults, join = last "
                 "thread done to join end (disarming):")
        for where, mib in sorted({k[:2] for k in phases}, reverse=True):
            for v in DIST_ORDER + sorted(set(k[2] for k in phases) - set(DIST_ORDER)):
                ps = phases.get((where, mib, v))
                if not ps:
                    continue
                m = lambda k: statistics.median(p[k] for p in ps if k in p)
                loops = sorted(k for k in ps[0] if k.startswith("loop"))
                L.append("  %-11s %4d MiB %-13s fork %8.1f  %s  join %6.1f" % (
                    where, mib, v, m("fork_ms"),
                    "  ".join("%s %8.1f" % (k[:-3], m(k)) for k in loops), m("join_ms")))
    return L


def dist_plot(path, png):
    meta, rows = dist_load(path)
    fig_ = dist_figures(rows)
    gmibs = sorted({r["mib"] for r in rows if r["where"] == "guest-tcg"})
    ref_mib = fig_.get("ref_ours", {}).get("mib", gmibs[-1] if gmibs else None)
    g = dist_medians(rows, "guest-tcg", ref_mib) if ref_mib else {}
    h = dist_medians(rows, "host-native")
    pairs = fig_.get("pairs")
    p = pyplot()
    fig, axes = p.subplots(1, 3, figsize=(21, 6.5), gridspec_kw={"width_ratios": [3, 1.6, 2.2]})
    ax = axes[0]
    vs = [v for v in DIST_ORDER if v in g]
    any_g = next(iter(g.values())) if g else None
    for i, v in enumerate(vs):
        ax.bar(i, g[v]["time"], color=DIST_COLORS[v], alpha=0.85)
        ax.scatter([i] * len(g[v]["times"]), g[v]["times"], color="k", s=10, zorder=3)
        ax.text(i, g[v]["time"] * 1.08, "%.0f" % g[v]["time"], ha="center", fontsize=9)
    if "reference" in g:
        y = g["reference"]["time"] / TARGET_REF_OURS
        ax.axhline(y, color="#d62728", ls=":", lw=1)
        ax.text(len(vs) - 0.5, y * 1.05, "target: ours <= reference / %.0f" % TARGET_REF_OURS,
                color="#d62728", ha="right", fontsize=9)
    ax.set_xticks(range(len(vs)))
    ax.set_xticklabels([DIST_LABEL[v] for v in vs], fontsize=8)
    ax.set_yscale("log")
    if vs:
        ax.set_ylim(top=max(max(g[v]["times"]) for v in vs) * 6)
    if "reference" in g and "ours-default" in g:
        r = g["reference"]["time"] / g["ours-default"]["time"]
        ax.text(0.02, 0.98, "reference / ours = %.1f  (target >= %.0f: %s)" % (
            r, TARGET_REF_OURS, "met" if r >= TARGET_REF_OURS else "missed"),
            transform=ax.transAxes, va="top", fontsize=10,
            bbox=dict(boxstyle="round", fc="white", ec="0.6"))
    ax.set_ylabel("ms (log scale): request + one pass of the loop")
    if any_g:
        ax.set_title("EMULATED (QEMU/TCG guest, 2 NUMA nodes, %d threads): %d MiB, %d pages;\n"
                     "median of %s runs (dots: each run); compare as ratios only" % (
                         any_g["threads"], any_g["pages"] * 4096 >> 20, any_g["pages"],
                         "-".join(sorted({str(g[v]["n"]) for v in vs}, key=int))), fontsize=10)
    ax = axes[1]
    if pairs:
        xs = pairs["ratios"]
        ax.boxplot([xs], widths=0.5, whis=(0, 100), medianprops=dict(color="#1f77b4", lw=2))
        ax.scatter([1 + 0.12 * ((i % 5) - 2) / 2 for i in range(len(xs))], xs, color="k",
                   s=14, zorder=3)
        ax.axhline(TARGET_OURS_ORACLE, color="#2ca02c", ls="--", lw=1)
        ax.text(1.45, TARGET_OURS_ORACLE, "target <= %.2f" % TARGET_OURS_ORACLE,
                color="#2ca02c", ha="right", va="bottom", fontsize=9)
        ax.axhline(1.0, color="0.6", ls=":", lw=1)
        lo, hi = pairs["ci"]
        ax.errorbar([1.32], [pairs["median"]],
                    yerr=[[pairs["median"] - lo], [hi - pairs["median"]]],
                    fmt="o", color="#1f77b4", capsize=5)
        ax.text(1.36, pairs["median"], "median %.2f\n95%% CI\n%.2f-%.2f" % (
            pairs["median"], lo, hi), fontsize=9, va="center")
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
            ax.bar(i, max(y, 0.01), color=DIST_COLORS[v], alpha=0.85)
            ax.text(i, max(y, 0.01) * 1.1, "%.2f" % y if y >= 0.01 else "~0",
                    ha="center", fontsize=9)
        ax.set_xticks(range(len(hv)))
        ax.set_xticklabels([DIST_LABEL[v] for v in hv], fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("us per page (log scale)")
        any_h = next(iter(h.values()))
        hload = [m.split("load average at start")[1].strip() for m in meta
                 if "load average at start" in m]
        ax.set_title("NATIVE (this host, 1 node: nothing moves): fault-path cost\n"
                     "per page over the plain loop, %d MiB, %d threads, forced arming%s" % (
                         any_h["pages"] * 4096 >> 20, any_h["threads"],
                         "\n(host load average %s)" % hload[0] if hload else ""), fontsize=10)
    p.tight_layout()
    p.savefig(png, dpi=90)
    p.close(fig)


# The RFC's own configuration (Lankes' RFC: 512 MB, 8 threads, 2 nodes;
# user-level next-touch 2518 ms, the kernel's 366 ms).
RFC_SEED = {"reference_ms": 2518.0, "kernel_ms": 366.0}


def dist_seed(d):
    """The seed part (bench/dist.sh, dist-seed): ours/oracle per pair and
    reference/ours of the medians, or None."""
    text = read(log_path(d, "dist-seed"))
    hdr, rows = None, []
    for line in text.splitlines():
        if line.startswith("csv,where"):
            hdr = line.split(",")[1:]
        elif line.startswith("csv,") and hdr:
            rows.append(dict(zip(hdr, line.split(",")[1:])))
    if not rows:
        return None
    t = lambda v: [float(r["time_ms"]) for r in rows if r["variant"] == v]
    pairs = {}
    for r in rows:
        if r["variant"] in ("ours-default", "oracle"):
            pairs.setdefault(r["rep"], {})[r["variant"]] = float(r["time_ms"])
    ratios = [p["ours-default"] / p["oracle"] for p in pairs.values() if len(p) == 2]
    ours, orc, ref = t("ours-default"), t("oracle"), t("reference")
    return {"mib": int(rows[0]["mib"]), "threads": int(rows[0]["threads"]),
            "ours": ours, "oracle": orc, "reference": ref, "ratios": ratios,
            "ours_oracle": med(ratios), "ref_ours": med(ref) / med(ours) if ref and ours else None,
            "ok": all(r["checksum"] == "ok" for r in rows) and part_rc(d, "dist-seed") == 0,
            "local": min(float(r["local_pct"]) for r in rows if r["variant"] != "none")}


def dist_seed_lines(x):
    rfc = RFC_SEED["reference_ms"] / RFC_SEED["kernel_ms"]
    if x["reference"]:
        ref = "reference %.0f ms (%d); ours/oracle per pair median %s (%s); reference/ours %s" % (
            med(x["reference"]), len(x["reference"]), fmt(x["ours_oracle"], ".2f"),
            ", ".join("%.2f" % r for r in x["ratios"]), fmt(x["ref_ours"], ".1f"))
    else:
        ref = ("ours/oracle per pair median %s (%s); reference/ours: the reference is not run "
               "at this size (BENCH_SEED_REPS=0; FULL=1 runs it)" % (
                   fmt(x["ours_oracle"], ".2f"), ", ".join("%.2f" % r for r in x["ratios"])))
    return ["the RFC's configuration, %d MiB, %d threads, 2 nodes (emulated): ours %.0f ms "
            "(median of %d, %.0f-%.0f), oracle %.0f ms (%d), %s; the RFC's 2518 ms / 366 ms = "
            "%.1f; local pages min %.1f %%" % (
                x["mib"], x["threads"], med(x["ours"]), len(x["ours"]), min(x["ours"]),
                max(x["ours"]), med(x["oracle"]), len(x["oracle"]), ref, rfc, x["local"])]


def cmd_dist(d):
    o = outdir(d, "dist")
    seed = dist_seed(d)
    if seed:
        print("\n".join(dist_seed_lines(seed)))
    path = dist_write_csv(d, o)
    rc = part_rc(d, "dist-2n")
    if path is None and seed:
        return 0 if seed["ok"] else 1
    if path is None:
        print("dist: no guest rows (guest part exit %s); see %s" % (rc, log_path(d, "dist-2n")))
        return 1
    text = "\n".join(dist_text(path))
    open(os.path.join(o, "nexttouch_dist-summary.txt"), "w").write(text + "\n")
    print(text)
    dist_plot(path, os.path.join(o, "nexttouch_dist.png"))
    _, rows = dist_load(path)
    bad = [r for r in rows if r["checksum"] != "ok"]
    if rc != 0 or bad:
        print("dist: FAILED: guest part exit %s, %d wrong checksums" % (rc, len(bad)))
        return 1
    return 0


# ---------------------------------------------------------------- placement accuracy

ACC_COLS = ["nodes", "pattern", "window", "pct_local", "pre_pct_local", "faults_per_page",
            "pages_per_batch", "misplaced_by_thread", "target", "target_met", "check"]


def acc_target(pattern):
    return ACC_TARGET.get(pattern, ACC_TARGET_OTHER)


def acc_rows(d):
    """NT_ACC lines of every guest part, in the order the parts ran; the
    status of each: (rows, failures)."""
    rows, bad = [], []
    for name in part_names(d, "accuracy-"):
        text = read(log_path(d, name))
        if part_rc(d, name) != 0:
            bad.append("%s: guest part exit %s" % (name, part_rc(d, name)))
        exits = [kv(l) for l in text.splitlines() if l.startswith("NT_EXIT ")]
        if not exits:
            bad.append("%s: nothing ran" % name)
        bad += ["%s: window %s exit %s" % (name, e.get("window"), e.get("rc"))
                for e in exits if e.get("rc") != "0"]
        for l in text.splitlines():
            if l.startswith("NT_ACC "):
                r = kv(l)
                rows.append(r)
                if r.get("check") != "ok":
                    bad.append("%s: %s, window %s: data check %s" % (
                        name, r.get("pattern"), r.get("window"), r.get("check")))
    return rows, bad


def acc_table(rows):
    fmt_ = "| %5s | %-10s | %-7s | %7s | %6s | %11s | %11s | %-16s | %6s | %3s | %-6s |"
    L = [fmt_ % ("nodes", "pattern", "window", "%local", "%pre", "faults/page",
                 "pages/batch", "misplaced/thread", "target", "met", "check"),
         fmt_ % ("-----", "----------", "-------", "-------", "------", "-----------",
                 "-----------", "----------------", "------", "---", "------")]
    keys = []
    for r in rows:
        if (r["nodes"], r["pattern"]) not in keys:
            keys.append((r["nodes"], r["pattern"]))
    for k in keys:
        for w in ("default", "exact"):
            for r in rows:
                if (r["nodes"], r["pattern"], r["window"]) == k + (w,):
                    L.append(fmt_ % tuple(r.get(c, "-") for c in ACC_COLS))
    return L


def cmd_accuracy(d):
    o = outdir(d, "accuracy")
    rows, bad = acc_rows(d)
    cols = list(rows[0].keys()) if rows else ACC_COLS
    with open(os.path.join(o, "accuracy.csv"), "w", newline="") as f:
        f.write("# placement accuracy (bench/accuracy.sh): %% of pages on their first toucher's "
                "node; %s; commit %s\n" % (config(d)[1].get("accuracy_params", ""),
                                          config(d)[1].get("commit")))
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([r.get(c, "") for c in cols])
    text = "\n".join(acc_table(rows))
    open(os.path.join(o, "accuracy-table.txt"), "w").write(text + "\n")
    print(text)
    for b in bad:
        print("accuracy: " + b)
    return 1 if bad else 0


# ---------------------------------------------------------------- applications

def blocks_lines(blocks):
    """The block-structured mesh (bench/apps/blocks.c): per node count, the
    variants' median times, the pages on their block's thread's node, and
    the ratios of medians of the same guest."""
    L = []
    for nodes in sorted({b["nodes"] for b in blocks}):
        rs = [b for b in blocks if b["nodes"] == nodes]
        by = {}
        for b in rs:
            by.setdefault(b["variant"], []).append(b)
        t = {v: med([num(b["time_ms"]) for b in x]) for v, x in by.items()}
        p = {v: med([num(b["place_ms"]) for b in x]) for v, x in by.items()}
        L.append("blocks (%s nodes, %s blocks, %s ranges, %s pages): %s" % (
            nodes, rs[0]["blocks"], rs[0]["ranges"], rs[0]["pages"], "; ".join(
                "%s %.0f ms (placement + first sweep %.0f), owner-local %.1f %%%s" % (
                    v, t[v], p[v], 100 * med([num(b["owner_local"]) for b in x]),
                    ", faults/page %.3f" % (num(x[0]["faults"]) / num(x[0]["pages"]))
                    if v in ("nexttouch", "reference") and num(x[0]["pages"]) else "")
                for v, x in sorted(by.items()))))
        if "nexttouch" in t and "oracle" in t and t["oracle"]:
            L.append("blocks (%s nodes): nexttouch / oracle %.2f (placement + first sweep "
                     "%.2f); reference / nexttouch %.2f (%.2f); none / nexttouch %.2f" % (
                         nodes, t["nexttouch"] / t["oracle"], p["nexttouch"] / p["oracle"],
                         t.get("reference", 0) / t["nexttouch"],
                         p.get("reference", 0) / p["nexttouch"],
                         t.get("none", 0) / t["nexttouch"]))
    return L


def cmd_apps(d):
    """One row per program, node count and variant. split: smallest and
    largest share of one node over the arrays of at least 128 pages (ideal
    1/nodes both); balanced: how many of those arrays have at least 0.9/nodes
    of their pages on every node; owner: pages on the node of the thread that
    uses them (static schedule); time: this variant / baseline, same guest."""
    o = outdir(d, "apps")
    rows, batch, bad, blocks = [], [], [], []
    for name in part_names(d, "apps-"):
        text = read(log_path(d, name))
        if part_rc(d, name) != 0:
            bad.append("%s: guest part exit %s" % (name, part_rc(d, name)))
        nodes, arrays = None, {}
        for l in text.splitlines():
            tag = l.split(" ", 1)[0]
            f = kv(l)
            if tag == "NT_INFO":
                nodes = int(f["nodes"])
            elif tag == "NT_ARRAY" and num(f.get("pages")) and num(f["pages"]) >= 128:
                a = arrays.setdefault((f["prog"], f["variant"]), [])
                a.append((num(f["min_share"]), num(f["max_share"])))
            elif tag == "NT_SUMMARY":
                a = arrays.pop((f["prog"], f["variant"]), [])
                rows.append(dict(f, nodes=f.get("nodes", nodes), arrays=a))
            elif tag == "NT_BATCH":
                batch.append("batchwin (%s nodes): faults/page single %s, interleaved %s, "
                             "ratio %s (target <= %g: %s)" % (
                                 nodes, f["single_fpp"], f["interleaved_fpp"], f["ratio"],
                                 BATCHWIN_TARGET, f["target_met"]))
            elif tag == "NT_BLOCKS":
                blocks.append(f)
                if f.get("result") != "VERIFIED":
                    bad.append("blocks, %s nodes, %s: %s" % (f.get("nodes"), f.get("variant"),
                                                            f.get("result")))
            elif tag == "NT_EXIT" and f.get("rc") != "0":
                bad.append("%s: %s exit %s" % (name, f.get("variant"), f.get("rc")))
        variants = {kv(l).get("variant") for l in text.splitlines() if l.startswith("NT_EXIT ")}
        if not variants:
            bad.append("%s: nothing ran" % name)
    base = {(r["prog"], r["nodes"]): num(r["time_ms"]) for r in rows
            if r["variant"] == "baseline"}
    pct = lambda x: "-" if num(x) is None else "%.1f" % (100 * num(x))
    fmt_ = "| %-20s | %5s | %-9s | %8s | %-9s | %8s | %6s | %11s | %9s | %-8s |"
    L = [fmt_ % ("program", "nodes", "variant", "%handled", "split", "balanced", "%owner",
                 "faults/page", "time/base", "result"),
         fmt_ % ("-" * 20, "-----", "-" * 9, "-" * 8, "-" * 9, "-" * 8, "-" * 6, "-" * 11,
                 "-" * 9, "-" * 8)]
    for r in rows:
        a, n = r["arrays"], int(r["nodes"])
        b = base.get((r["prog"], r["nodes"]))
        L.append(fmt_ % (
            r["prog"], r["nodes"], r["variant"], pct(r.get("handled")),
            "%.2f/%.2f" % (min(x for x, _ in a), max(y for _, y in a)) if a else "-",
            "%d/%d" % (sum(x * n >= 0.9 for x, _ in a), len(a)) if a else "-",
            pct(r.get("owner_local")),
            "-" if num(r.get("faults_per_page")) is None else "%.3f" % num(r["faults_per_page"]),
            "%.2f" % (num(r["time_ms"]) / b) if b else "-", r.get("result")))
        if r.get("result") != "VERIFIED":
            bad.append("%s, %s nodes, %s: %s" % (r["prog"], r["nodes"], r["variant"],
                                                 r.get("result")))
    text = "\n".join(L + [""] + batch + blocks_lines(blocks))
    open(os.path.join(o, "apps-table.txt"), "w").write(text + "\n")
    print(text)
    for x in bad:
        print("apps: " + x)
    return 1 if bad else 0


# ---------------------------------------------------------------- readonly

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


# ---------------------------------------------------------------- Jacobi and CG
#
# Every time is measured in a guest (emulated): only ratios between variants
# of one guest part are compared. TCG does not model NUMA distances, so the
# benefit of locality is modelled: an iteration with a share f of its pages
# local costs T_ideal * (f + (1 - f) * R) for a NUMA latency ratio R (remote /
# local access time; NUMA_RATIO, the SLIT distance 20/10 of a two-socket
# machine and about the ratio of Lof & Holmgren's Sun Fire 15K). The
# break-even iteration count of nexttouch against no placement is then
# O / (T_ideal * (f_nexttouch - f_none) * (R - 1)), with O the measured
# overhead (the directive plus nexttouch's first iteration minus the first
# iteration without placement, same part).

SOL_MAIN = ["none", "nexttouch", "oracle", "interleave", "ideal"]   # the main part
SOL_VARIANTS = SOL_MAIN + ["autonuma"]
SOL_PROGS = ["jacobi", "cg3d"]
SOL_COLORS = {"none": "#888888", "nexttouch": "#d62728", "oracle": "#ff7f0e",
              "interleave": "#1f77b4",
          "ideal": "#2ca02c", "autonuma": "#9467bd"}
SOL_BOOTS = ["main", "autonuma", "sweep-2n", "sweep-4n", "main-4n"]


def sol_parse(rundir, which=SOL_BOOTS):
    boots, runs = {}, []
    for b in which:
        path = log_path(rundir, "solvers-" + b)
        if not os.path.exists(path):
            continue
        info = {"boot": b, "header": []}
        boots[b] = info
        run = None
        with open(path, errors="replace") as f:
            for raw in f:
                line = raw.strip()
                tag = line.split(" ", 1)[0]
                if tag in ("NT_BOOT", "NT_GUEST", "NT_AUTONUMA_PARAMS", "NT_BOOT_END"):
                    info.update(kv(line))
                    info["header"].append(line)
                elif tag == "NT_RUN":
                    run = dict(kv(line), boot=b, iters=[], arrays=[], text=[],
                               vmstat={})
                    runs.append(run)
                elif run is None:
                    continue
                elif tag == "NT_INFO":
                    run["info"] = kv(line)
                elif tag == "NT_PHASE":
                    run["phase"] = kv(line)
                elif tag == "NT_ORACLE":
                    run["oracle"] = kv(line)
                elif tag == "NT_TLB":
                    run["tlb"] = num(kv(line).get("shootdowns"))
                elif tag == "NT_ITER":
                    d = kv(line)  # a line cut short (a guest still running) is left out
                    if all(k in d for k in ("iter", "time_ms", "solver_ms", "wall_ms")):
                        run["iters"].append(d)
                elif tag == "NT_ARRAY":
                    run["arrays"].append(kv(line))
                elif tag == "NT_SUMMARY":
                    run["summary"] = kv(line)
                elif tag == "NT_EXIT":
                    run["rc"] = kv(line).get("rc")
                elif tag == "NT_VMSTAT":
                    d = kv(line)
                    run["vmstat"][d.pop("when")] = d
                elif line.startswith(("cg3d:", "jacobi:")):
                    run["text"].append(line)
    return boots, runs


def sol_derive(boots, runs):
    """Per-run figures used by the CSV, the summary and the sol_plots."""
    for r in runs:
        b = boots[r["boot"]]
        r["nodes"] = int(b.get("nodes", 0))
        its = r["iters"]
        t = [num(i["time_ms"]) for i in its]
        r["k"] = len(its)
        r["t1"] = t[0] if t else None
        r["tmed"] = med(t[1:]) if len(t) > 1 else None
        r["solver_ms"] = num(its[-1].get("solver_ms")) if its else None
        # Measurements whose local share is over at least half of the pages
        # (with numa_balancing=1, move_pages reports no node for the pages
        # the kernel has just unmapped to sample accesses: NT_ITER unknown=).
        dp = num(r.get("summary", {}).get("data_pages")) or 0
        meas = [i for i in its if "owner_local" in i and num(i["owner_local"]) >= 0
                and (not dp or (num(i.get("unknown")) or 0) <= 0.5 * dp)]
        r["unknown_max"] = max([num(i.get("unknown")) or 0 for i in its
                                if "owner_local" in i] or [0])
        r["meas"] = meas
        r["f1"] = num(meas[0]["owner_local"]) if meas and meas[0]["iter"] == "1" else None
        r["fk"] = num(meas[-1]["owner_local"]) if meas else None
        r["g1"] = num(meas[0].get("gather_local")) if meas else None
        r["gk"] = num(meas[-1].get("gather_local")) if meas else None
        ph = r.get("phase", {})
        r["init_ms"] = num(ph.get("init_ms"))
        r["directive_ms"] = num(ph.get("directive_ms"))
        r["start_ms"] = num(ph.get("start_ms"))
        s = r.get("summary", {})
        r["result"] = s.get("result", "MISSING")
        per_node = [0] * max(r["nodes"], 1)
        for a in r["arrays"]:
            for n in range(len(per_node)):
                per_node[n] += int(a.get("node%d" % n, 0))
        r["per_node"] = per_node
        tot = sum(per_node)
        r["share"] = [x / tot if tot else 0 for x in per_node]
        vb, va = r["vmstat"].get("before", {}), r["vmstat"].get("after", {})
        r["vm"] = {k: int(va[k]) - int(vb[k]) for k in va if k in vb}
        r["thread_nodes"] = r.get("info", {}).get("thread_nodes", "")


def sol_config_lines(d, boots):
    lines = list(config(d)[0])
    for b in SOL_BOOTS:
        if b in boots:
            lines += boots[b]["header"]
    lines.append("times: emulated (QEMU/TCG guest); only ratios within one boot "
                 "mean anything; sweep-4n and main-4n have 4 vCPUs on 2 host cores")
    return lines


def sol_write_csvs(out, runs, cfg):
    def w(name, header, rows):
        with open(os.path.join(out, name), "w", newline="") as f:
            for l in cfg:
                f.write("# " + l + "\n")
            c = csv.writer(f)
            c.writerow(header)
            c.writerows(rows)

    key = ["boot", "nodes", "rep", "prog", "variant", "bind", "places", "threads"]
    sumk = ["pages_armed", "faults", "batches", "pages_migrated",
            "pages_already_local", "pages_still_armed", "handled",
            "faults_per_page", "data_pages", "time_ms"]
    vmk = ["numa_hint_faults", "numa_hint_faults_local", "numa_pages_migrated",
           "numa_pte_updates"]
    rows = []
    for r in runs:
        rows.append([r.get(k, r.get(k)) for k in key] +
                    [r["thread_nodes"], r.get("info", {}).get("mempolicy"),
                     r["init_ms"], r["directive_ms"], r["start_ms"], r["k"], r["t1"], r["tmed"],
                     r["solver_ms"], r["f1"], r["fk"], r["g1"], r["gk"],
                     ";".join(str(x) for x in r["per_node"])] +
                    [r.get("summary", {}).get(k) for k in sumk] +
                    [r["vm"].get(k) for k in vmk] + [r["result"], r.get("rc")])
    w("solvers-runs.csv",
      key + ["thread_nodes", "mempolicy", "init_ms", "directive_ms", "start_ms",
             "iterations",
             "iter1_ms", "iter_median_2_k_ms", "solver_ms", "owner_local_1",
             "owner_local_k", "gather_local_1", "gather_local_k",
             "pages_per_node"] + sumk + [k + "_delta" for k in vmk] +
      ["result", "rc"], rows)
    rows = []
    for r in runs:
        for i in r["iters"]:
            rows.append([r.get(k) for k in key] +
                        [i.get(k) for k in ("iter", "time_ms", "solver_ms", "wall_ms",
                                            "owner_local", "gather_local", "unknown",
                                            "thread_nodes")])
    w("solvers-iter.csv", key + ["iter", "time_ms", "solver_ms", "wall_ms",
                                 "owner_local", "gather_local", "unknown_pages",
                                 "thread_nodes"], rows)
    rows = []
    for r in runs:
        for a in r["arrays"]:
            rows.append([r.get(k) for k in key] +
                        [a.get("array"), a.get("pages")] +
                        [a.get("node%d" % n, "") for n in range(4)] +
                        [a.get("other"), a.get("owner_local")])
    w("solvers-arrays.csv", key + ["array", "pages", "node0", "node1", "node2",
                                   "node3", "other", "owner_local"], rows)


def sol_overhead(run, none_t1):
    """A placement's one-time overhead in one repetition: its step before the
    solver (the directive, or the oracle's move_pages) plus its first
    iteration, minus the first iteration without placement; for nexttouch
    plus the engine's start-up if it was measured apart (NT_APP_WARM=1: what
    the process's first request cost more than its second, both made before
    the clock)."""
    return (run["directive_ms"] or 0) + run["t1"] - none_t1 + sol_startup(run)


def sol_startup(run):
    return num(run.get("summary", {}).get("startup_ms")) or 0


def sol_oracle_compare(rs, agg, ratio):
    """nexttouch against the oracle in the main part: each one's overhead per
    repetition (against the same repetition's no-placement run); the target's
    ratio is that of their medians over the repetitions, beside each
    repetition's ratio (median, min-max). The oracle's move_pages time moves by
    up to 2x between the repetitions of one boot (its per-page shoot-downs),
    whatever nexttouch's run beside it did, so one repetition's ratio mostly
    measures the oracle's spread. Also the break-evens, local shares and the
    profile of each (the engine's counters; the oracle's move_pages calls)."""
    idl, no = agg.get("ideal", {}), agg.get("none")
    if not idl.get("tmed") or not no or "nexttouch" not in agg or "oracle" not in agg:
        return None
    per, warm, O, O_warm = [], [], {"nexttouch": [], "oracle": []}, []
    for rep in sorted({r["rep"] for r in rs}, key=int):
        g = {r["variant"]: r for r in rs if r["rep"] == rep}
        if not all(v in g and g[v]["t1"] is not None for v in ("none", "nexttouch", "oracle")):
            continue
        o = {v: sol_overhead(g[v], g["none"]["t1"]) for v in O}
        for v in O:
            O[v].append(o[v])
        O_warm.append(o["nexttouch"] - sol_startup(g["nexttouch"]))
        if o["oracle"] > 0:
            per.append(o["nexttouch"] / o["oracle"])
            warm.append((o["nexttouch"] - sol_startup(g["nexttouch"])) / o["oracle"])
    if not per:
        return None
    cold = med(O["nexttouch"]) / med(O["oracle"])
    out = {"ratios": per, "ratio": cold, "per_med": med(per), "min": min(per), "max": max(per),
           "n": len(per), "met": cold <= TARGET_SOLVER_ORACLE, "tideal": idl["tmed"],
           "warm": med(O_warm) / med(O["oracle"]), "warm_min": min(warm),
           "warm_max": max(warm)}
    for v in O:
        a = agg[v]
        o = med(O[v])
        df = (a["fk"] or 0) - (no["fk"] or 0)
        vr = [r for r in rs if r["variant"] == v]

        def m(key, src="summary"):
            return med([num(r.get(src, {}).get(key)) for r in vr])
        out[v] = {"O": o, "O_it": o / idl["tmed"], "O_range": (min(O[v]), max(O[v])), "df": df,
                  "be": o / (idl["tmed"] * df * (ratio - 1)) if df > 0 and ratio > 1 else None,
                  "f1": a["f1"], "fk": a["fk"], "dir": a["directive_ms"], "t1": a["t1"],
                  "faults": m("faults"), "batches": m("batches"), "armed": m("pages_armed"),
                  "migrated": m("pages_migrated"), "arm_ms": m("arm_ms"),
                  "fault_ms": m("fault_ms"), "disarm_ms": m("disarm_ms"),
                  "startup_ms": med([sol_startup(r) for r in vr]), "calls": m("calls", "oracle"),
                  "move_ms": m("ms", "oracle"), "move_max_ms": m("max_thread_ms", "oracle"),
                  "on_node": m("on_node", "oracle"), "pages": m("pages", "oracle"),
                  "tlb": med([r.get("tlb") for r in vr])}
    out["tlb_none"] = med([r.get("tlb") for r in rs if r["variant"] == "none"])
    return out


def sol_compare_lines(p, c, ratio):
    """The summary's lines for nexttouch against the oracle."""
    nt, orc = c["nexttouch"], c["oracle"]
    return [
        "%s nexttouch / oracle, one-time overhead: %.2f, the ratio of the medians over %d "
        "repetitions (target <= %.2f: %s; per repetition median %.2f, min-max %.2f-%.2f); "
        "without the engine's start-up %.2f (per repetition %.2f-%.2f)" % (
            p, c["ratio"], c["n"], TARGET_SOLVER_ORACLE, "met" if c["met"] else "MISSED",
            c["per_med"], c["min"], c["max"], c["warm"], c["warm_min"], c["warm_max"]),
        "  overhead O (start-up + step before the solver + iteration 1 - iteration 1 without "
        "placement, same repetition; median, min-max): nexttouch %.1f ms (%.1f-%.1f) = %.1f ideal "
        "iterations, oracle %.1f ms (%.1f-%.1f) = %.1f ideal iterations (emulated)" % (
            nt["O"], nt["O_range"][0], nt["O_range"][1], nt["O_it"], orc["O"],
            orc["O_range"][0], orc["O_range"][1], orc["O_it"]),
        "  break-even against no placement (R=%.1f): nexttouch %s, oracle %s iterations; "
        "local share after 1 iteration: nexttouch %s, oracle %s" % (
            ratio, fmt(nt["be"], ".1f"), fmt(orc["be"], ".1f"), fmt(nt["f1"]), fmt(orc["f1"])),
        "  nexttouch: engine start-up %s ms, directive %s ms, iteration 1 %s ms; %s pages armed, "
        "%s moved, %s faults "
        "(%s pages per fault); engine timers: arm %s ms, faults %s ms (summed over threads), "
        "disarm %s ms" % (
            fmt(nt["startup_ms"], ".1f"), fmt(nt["dir"], ".2f"), fmt(nt["t1"], ".1f"),
            fmt(nt["armed"], ".0f"),
            fmt(nt["migrated"], ".0f"), fmt(nt["faults"], ".0f"),
            fmt(nt["armed"] / nt["faults"] if nt["armed"] and nt["faults"] else None, ".1f"),
            fmt(nt["arm_ms"], ".1f"), fmt(nt["fault_ms"], ".1f"), fmt(nt["disarm_ms"], ".2f")),
        "  oracle: move_pages %s ms (slowest node's thread %s ms), %s calls for %s pages, "
        "iteration 1 %s ms" % (
            fmt(orc["move_ms"], ".1f"), fmt(orc["move_max_ms"], ".1f"), fmt(orc["calls"], ".0f"),
            fmt(orc["pages"], ".0f"), fmt(orc["t1"], ".1f")),
        "  TLB shoot-downs per process (guest /proc/interrupts): nexttouch %s, oracle %s, "
        "none %s" % (fmt(nt["tlb"], ".0f"), fmt(orc["tlb"], ".0f"), fmt(c["tlb_none"], ".0f"))]


def sol_aggregate(rs):
    """Per variant, the medians over its runs of rs (one program, one boot)."""
    agg = {}
    for v in SOL_VARIANTS:
        vr = [r for r in rs if r["variant"] == v]
        if vr:
            agg[v] = {k: med([r[k] for r in vr]) for k in
                      ("t1", "tmed", "solver_ms", "f1", "fk", "g1", "gk",
                       "directive_ms", "init_ms", "k")}
            agg[v]["migrated"] = med([num(r.get("summary", {}).get("pages_migrated"))
                                      for r in vr])
            agg[v]["n"] = len(vr)
            agg[v]["ok"] = all(r["result"] == "VERIFIED" for r in vr)
    return agg


def sol_summarize(boots, runs, ratio):
    L = []
    S = {}  # figures for the sol_plots
    main = [r for r in runs if r["boot"] == "main"]
    if main:
        b = boots["main"]
        L.append("Main boot: %s nodes, %s vCPUs, numa_balancing %s, %s; "
                 "OMP_PROC_BIND=spread OMP_PLACES=cores; medians over %d repetitions."
                 % (b.get("nodes"), b.get("cpus"), b.get("numa_balancing"),
                    "guest kernel " + b.get("kernel", "?"),
                    max(int(r["rep"]) for r in main)))
        L.append("Times emulated (TCG: no NUMA latency); 'model' = modelled time per "
                 "iteration / ideal with R = %.1f." % ratio)
    for p in SOL_PROGS:
        rs = [r for r in main if r["prog"] == p]
        if not rs:
            continue
        agg = sol_aggregate(rs)
        S[p] = agg
        idl = agg.get("ideal", {})
        L.append("")
        L.append("%s (k = %s iterations; %s)" % (p, fmt(idl.get("k"), ".0f"),
                 [t for t in rs[0]["text"] if "bandwidth" in t or "N=" in t][:1]))
        hdr = ("variant     runs  iter1_ms  iter_ms(2..k)  iter1/ideal  iter/ideal  "
               "model/ideal  local@1  local@k  gather@k  migrated  verified")
        L.append(hdr)
        for v, a in agg.items():
            model = None
            if a["fk"] is not None:
                model = (a["fk"] + (1 - a["fk"]) * ratio) / \
                        ((idl.get("fk") or 1) + (1 - (idl.get("fk") or 1)) * ratio)
            a["model"] = model
            a["r1"] = a["t1"] / idl["t1"] if idl.get("t1") and a["t1"] else None
            a["rmed"] = a["tmed"] / idl["tmed"] if idl.get("tmed") and a["tmed"] else None
            L.append("%-10s  %4d  %8s  %13s  %11s  %10s  %11s  %7s  %7s  %8s  %8s  %s" % (
                v, a["n"], fmt(a["t1"], ".1f"), fmt(a["tmed"], ".1f"), fmt(a["r1"], ".2f"),
                fmt(a["rmed"], ".2f"), fmt(model, ".2f"), fmt(a["f1"]), fmt(a["fk"]),
                fmt(a["gk"]), fmt(a["migrated"], ".0f"), "yes" if a["ok"] else "NO"))
        nt, no = agg.get("nexttouch"), agg.get("none")
        c = sol_oracle_compare(rs, agg, ratio)
        if nt and no and idl and None not in (nt["t1"], no["t1"], idl.get("tmed")):
            # The median over the repetitions of each one's overhead (the
            # oracle's is measured the same way), else of the medians.
            over = c["nexttouch"]["O"] if c else \
                (nt["directive_ms"] or 0) + nt["t1"] - no["t1"]
            df = (nt["fk"] or 0) - (no["fk"] or 0)
            be = {}
            for R in (1.5, 2.0, 3.0, ratio):
                be[R] = over / (idl["tmed"] * df * (R - 1)) if df > 0 and R > 1 else None
            S[p]["_over"] = over
            S[p]["_df"] = df
            S[p]["_tideal"] = idl["tmed"]
            S[p]["_be"] = be
            L.append("nexttouch overhead O = engine start-up + directive + iteration 1 - "
                     "iteration 1 without placement (medians: %.1f + %.1f + %.1f - %.1f ms), "
                     "median over the repetitions %.1f ms = %.1f ideal iterations (emulated)" % (
                         c["nexttouch"]["startup_ms"] if c else 0, nt["directive_ms"] or 0,
                         nt["t1"], no["t1"], over, over / idl["tmed"]))
            L.append("break-even (iterations after which nexttouch is ahead of no "
                     "placement), local share %.3f -> %.3f: R=1.5: %s, R=2: %s, R=3: %s"
                     % (no["fk"], nt["fk"], fmt(be[1.5], ".1f"), fmt(be[2.0], ".1f"),
                        fmt(be[3.0], ".1f")))
        if c:
            S[p]["_cmp"] = c
            L += sol_compare_lines(p, c, ratio)
    # nexttouch against the oracle on 4 nodes
    main4 = [r for r in runs if r["boot"] == "main-4n"]
    if main4:
        L += ["", "4 nodes, 4 threads (4 vCPUs on 2 host cores); medians over %d repetitions."
              % max(int(r["rep"]) for r in main4)]
    for p in SOL_PROGS:
        rs = [r for r in main4 if r["prog"] == p]
        c = sol_oracle_compare(rs, sol_aggregate(rs), ratio) if rs else None
        if c:
            S.setdefault(p, {})["_cmp4"] = c
            L += sol_compare_lines(p + " (4 nodes)", c, ratio)
    # AutoNUMA
    an = [r for r in runs if r["boot"] == "autonuma"]
    if an:
        b = boots["autonuma"]
        L.append("")
        L.append("AutoNUMA boot (a second boot: numa_balancing %s; %s)"
                 % (b.get("numa_balancing"),
                    " ".join(l for l in b["header"] if l.startswith("NT_AUTONUMA_PARAMS"))
                    .replace("NT_AUTONUMA_PARAMS ", "kernel parameters ")))
    for p in SOL_PROGS:
        ra = [r for r in an if r["prog"] == p and r["variant"] == "autonuma"]
        if not ra:
            continue
        target_src = S.get(p, {}).get("nexttouch", {}).get("f1")
        target = (target_src - 0.01) if target_src is not None else 0.99
        per = []
        for r in ra:
            reach = next((m for m in r["meas"] if num(m["owner_local"]) >= target), None)
            ri = [x for x in an if x["prog"] == p and x["variant"] == "ideal"
                  and x["rep"] == r["rep"]]
            t_ideal = ri[0]["tmed"] if ri else None
            ts = [num(i["time_ms"]) for i in r["iters"]]
            per.append({
                "run": r, "reach": reach, "t_ideal": t_ideal,
                "ratio": med(ts) / t_ideal if t_ideal else None,
                "it": int(reach["iter"]) if reach else None,
                "solver_s": num(reach["solver_ms"]) / 1e3 if reach else None,
                "wall_s": num(reach["wall_ms"]) / 1e3 if reach else None,
                "proc_s": (num(reach["wall_ms"]) + (r["start_ms"] or 0)) / 1e3 if reach else None,
                "final": num(r["meas"][-1]["owner_local"]) if r["meas"] else None})
        agg = {k: med([x[k] for x in per]) for k in
               ("it", "solver_s", "wall_s", "proc_s", "ratio", "final")}
        agg.update(target=target, per=per,
                   reached=sum(1 for x in per if x["reach"]), n=len(per))
        S.setdefault(p, {})["_autonuma"] = agg
        L.append("%s autonuma, %d runs of %s s of solver time: the local share reached "
                 "%.3f (nexttouch's after its first iteration - 0.01) in %d of %d runs; "
                 "medians: after iteration %s, %s s of solver time, %s s of wall time "
                 "since the solver's start, %s s since the process's; local share at the "
                 "end %s; time per iteration / ideal in the same boot %s; verified: %s"
                 % (p, len(per), fmt(med([x["run"]["solver_ms"] / 1e3 for x in per]), ".0f"),
                    target, agg["reached"], len(per), fmt(agg["it"], ".0f"),
                    fmt(agg["solver_s"], ".2f"), fmt(agg["wall_s"], ".2f"),
                    fmt(agg["proc_s"], ".2f"), fmt(agg["final"]), fmt(agg["ratio"], ".2f"),
                    "yes" if all(x["run"]["result"] == "VERIFIED" for x in per) else "NO"))
        for x in per:
            r = x["run"]
            L.append("  rep %s: %d iterations; reached after iteration %s, %s s solver, "
                     "%s s wall, %s s since the process's start; iteration median %s ms, "
                     "ideal %s ms; vmstat: %s"
                     % (r["rep"], r["k"], x["it"] if x["it"] else "- (not reached)",
                        fmt(x["solver_s"], ".2f"), fmt(x["wall_s"], ".2f"),
                        fmt(x["proc_s"], ".2f"),
                        fmt(med([num(i["time_ms"]) for i in r["iters"]]), ".1f"),
                        fmt(x["t_ideal"], ".1f"),
                        " ".join("%s=%d" % kvp for kvp in sorted(r["vm"].items())
                                 if kvp[0] in ("numa_hint_faults", "numa_hint_faults_local",
                                               "numa_pages_migrated", "numa_pte_updates"))))
    # Sweep
    for b in ("sweep-2n", "sweep-4n"):
        sw = [r for r in runs if r["boot"] == b]
        if not sw:
            continue
        L.append("")
        L.append("OMP_PROC_BIND x OMP_PLACES, %s (%s nodes, %s vCPUs; one run each; "
                 "local share and pages per node after the last iteration)"
                 % (b, boots[b].get("nodes"), boots[b].get("cpus")))
        L.append("prog    variant    bind     places        threads->nodes  local   "
                 "pages per node (share)              migrated  verified")
        for r in sw:
            L.append("%-7s %-10s %-8s %-13s %-15s %6s   %-35s %8s  %s" % (
                r["prog"], r["variant"], r["bind"], r["places"], r["thread_nodes"],
                fmt(r["fk"]), " ".join("%.2f" % x for x in r["share"]),
                r.get("summary", {}).get("pages_migrated", "-"),
                "yes" if r["result"] == "VERIFIED" else "NO"))
        S["_" + b] = sw
    return L, S


def sol_plots(plotdir, runs, S, ratio):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 8})
    dpi = 90
    main = [r for r in runs if r["boot"] == "main"]

    # 1. time per iteration by variant (Löf & Holmgren's Figure 1).
    fig, axs = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, p in zip(axs, SOL_PROGS):
        for v in SOL_MAIN:
            vr = [r for r in main if r["prog"] == p and r["variant"] == v]
            if not vr:
                continue
            k = min(len(r["iters"]) for r in vr)
            ys = [med([num(r["iters"][i]["time_ms"]) for r in vr]) for i in range(k)]
            ax.plot(range(1, k + 1), ys, marker="o" if v == "nexttouch" else None,
                    ms=3, label=v, color=SOL_COLORS[v], lw=1.2)
        ax.set_yscale("log")
        ax.set_xlabel("iteration")
        ax.set_ylabel("time per iteration (emulated ms, log)")
        ax.set_title("%s: time per iteration (median of %d runs)" %
                     (p, max([int(r["rep"]) for r in main if r["prog"] == p] or [0])))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("EMULATED (QEMU/TCG, 2 nodes, 2 vCPUs): TCG has no NUMA latency, "
                 "so only nexttouch's first-iteration cost shows", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(plotdir, "solvers-iterations.png"), dpi=dpi)
    plt.close(fig)

    # 2. local fraction per variant after 1 and after k iterations.
    fig, axs = plt.subplots(1, 2, figsize=(9, 3.0))
    for ax, p in zip(axs, SOL_PROGS):
        agg = S.get(p, {})
        names, f1, fk = [], [], []
        for v in SOL_MAIN:
            if v in agg:
                names.append(v), f1.append(agg[v]["f1"] or 0), fk.append(agg[v]["fk"] or 0)
        an = agg.get("_autonuma")
        if an:
            k = agg.get("ideal", {}).get("k") or 0
            a1, ak = [], []
            for x in an["per"]:
                r = x["run"]
                at_k = [m for m in r["meas"] if int(m["iter"]) <= k]
                a1.append(r["f1"])
                ak.append(num(at_k[-1]["owner_local"]) if at_k else None)
            names.append("autonuma")
            f1.append(med(a1) or 0)
            fk.append(med(ak) or 0)
        x = range(len(names))
        ax.bar([i - 0.2 for i in x], f1, 0.4, label="after 1 iteration", color="#aec7e8")
        ax.bar([i + 0.2 for i in x], fk, 0.4, label="after k iterations", color="#1f77b4")
        for i in x:
            ax.text(i + 0.2, fk[i] + 0.01, "%.2f" % fk[i], ha="center", fontsize=7)
        ax.set_xticks(list(x))
        ax.set_xticklabels(names)
        ax.set_ylim(0, 1.12)
        ax.set_ylabel("pages on the node of their thread")
        ax.set_title("%s: local share (k = %s; guest placement, not emulated)" %
                     (p, fmt(agg.get("ideal", {}).get("k"), ".0f")))
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(os.path.join(plotdir, "solvers-locality.png"), dpi=dpi)
    plt.close(fig)

    # 3. AutoNUMA: local share over time against nexttouch's at once.
    if any("_autonuma" in S.get(p, {}) for p in SOL_PROGS):
        fig, axs = plt.subplots(1, 2, figsize=(9, 3.0))
        for ax, p in zip(axs, SOL_PROGS):
            an = S.get(p, {}).get("_autonuma")
            if not an:
                continue
            for i, x in enumerate(an["per"]):
                m = x["run"]["meas"]
                ax.plot([num(y["wall_ms"]) / 1e3 for y in m], [num(y["owner_local"]) for y in m],
                        color=SOL_COLORS["autonuma"], marker=".", lw=1, alpha=0.8,
                        label="autonuma (numa_balancing=1), %d runs" % len(an["per"])
                        if i == 0 else None)
            nt = S[p].get("nexttouch")
            if nt:
                t1 = ((nt["directive_ms"] or 0) + nt["t1"]) / 1e3
                ax.axhline(nt["f1"], color=SOL_COLORS["nexttouch"], ls="--",
                           label="nexttouch, after iteration 1 (%.2f s)" % t1)
            if an["wall_s"] is not None:
                ax.axvline(an["wall_s"], color="#444444", ls=":",
                           label="autonuma reaches it (median): %.2f s, iteration %.0f" %
                           (an["wall_s"], an["it"]))
            ax.set_xlim(0, max(3.0, 3 * (an["wall_s"] or 1)))
            ax.set_ylim(0, 1.05)
            ax.set_xlabel("time since the solver started (s, guest wall clock)")
            ax.set_ylabel("local share")
            ax.set_title("%s: AutoNUMA alone (second boot)" % p)
            ax.legend(fontsize=7, loc="lower right")
            ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(plotdir, "solvers-autonuma.png"), dpi=dpi)
        plt.close(fig)

    # 4. ratios: measured (emulated) per-iteration time / ideal, the model,
    # and the break-even count against the NUMA ratio.
    fig, axs = plt.subplots(1, 2, figsize=(9, 3.0))
    ax = axs[0]
    w = 0.08
    labels = []
    for j, p in enumerate(SOL_PROGS):
        agg = S.get(p, {})
        for i, v in enumerate(SOL_MAIN):
            a = agg.get(v)
            if not a:
                continue
            x = j * 1.0 + (i - 2) * 0.18
            ax.bar(x - w / 2, a.get("rmed") or 0, w, color=SOL_COLORS[v],
                   label=v + " (emulated)" if j == 0 else None)
            ax.bar(x + w / 2, a.get("model") or 0, w, color=SOL_COLORS[v], alpha=0.4,
                   hatch="//", label=v + " (model, R=%.1f)" % ratio if j == 0 else None)
        labels.append(p)
    ax.axhline(1, color="k", lw=0.5)
    ax.set_xticks([0, 1])
    ax.set_xticklabels(labels)
    ax.set_ylabel("time per iteration / ideal (iterations 2..k)")
    ax.set_title("time per iteration / ideal init: emulated (solid), model (hatched)")
    ax.set_ylim(0, 2.2)
    ax.legend(fontsize=6, ncol=2, loc="upper center")
    ax = axs[1]
    Rs = [1.1 + 0.05 * i for i in range(59)]
    for p, c in zip(SOL_PROGS, ("#d62728", "#ff7f0e")):
        agg = S.get(p, {})
        if "_over" not in agg or not agg.get("_df"):
            continue
        ks = [agg["_over"] / (agg["_tideal"] * agg["_df"] * (R - 1)) for R in Rs]
        ax.plot(Rs, ks, color=c, label="%s (O = %.1f ideal iterations)" %
                (p, agg["_over"] / agg["_tideal"]))
        orc = agg.get("_cmp", {}).get("oracle")
        if orc and orc["df"] > 0:
            ax.plot(Rs, [orc["O"] / (agg["_tideal"] * orc["df"] * (R - 1)) for R in Rs],
                    color=c, ls="--", lw=1,
                    label="%s oracle (O = %.1f ideal iterations)" % (p, orc["O_it"]))
        b2 = agg["_be"].get(ratio)
        if b2:
            ax.plot([ratio], [b2], "o", color=c)
            ax.annotate("%.1f" % b2, (ratio, b2), textcoords="offset points",
                        xytext=(4, 4), fontsize=7)
    ax.axvline(ratio, color="#888888", ls=":", lw=1)
    ax.set_yscale("log")
    ax.set_xlabel("NUMA latency ratio R (remote / local)")
    ax.set_ylabel("break-even iterations (model)")
    ax.set_title("nexttouch (solid), oracle (dashed) vs no placement: break-even")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(plotdir, "solvers-ratios.png"), dpi=dpi)
    plt.close(fig)

    # 5. OMP_PROC_BIND x OMP_PLACES: where the pages went.
    sweeps = [b for b in ("sweep-2n", "sweep-4n") if "_" + b in S]
    if sweeps:
        fig, axs = plt.subplots(len(sweeps), 2, figsize=(9, 2.8 * len(sweeps)),
                                squeeze=False)
        for row, b in enumerate(sweeps):
            sw = S["_" + b]
            for col, p in enumerate(SOL_PROGS):
                ax = axs[row][col]
                combos = []
                for r in sw:
                    c = (r["bind"], r["places"])
                    if r["prog"] == p and c not in combos:
                        combos.append(c)
                for i, c in enumerate(combos):
                    for j, v in enumerate(("nexttouch", "ideal")):
                        r = next((r for r in sw if r["prog"] == p and r["variant"] == v
                                  and (r["bind"], r["places"]) == c), None)
                        if not r:
                            continue
                        x = i + (j - 0.5) * 0.4
                        bottom = 0
                        for n, sh in enumerate(r["share"]):
                            ax.bar(x, sh, 0.36, bottom=bottom,
                                   color=plt.cm.Set2(n), edgecolor="white", lw=0.3,
                                   label=("node %d" % n) if i == 0 and j == 0 else None)
                            bottom += sh
                        ax.plot([x], [r["fk"] or 0], "k_", ms=10, mew=2,
                                label="local share" if i == 0 and j == 0 else None)
                        ax.text(x, 1.02, ("NT" if v == "nexttouch" else "I") + "\n" +
                                r["thread_nodes"].replace(",", ""), ha="center",
                                fontsize=5)
                ax.set_xticks(range(len(combos)))
                ax.set_xticklabels(["%s\n%s" % (c[0], c[1].replace("numa_domains", "numa_dom."))
                                    for c in combos], fontsize=6)
                ax.set_ylim(0, 1.2)
                ax.set_ylabel("share of pages per node")
                ax.set_title("%s, %s: NT = nexttouch, I = ideal; digits: thread nodes"
                             % (p, b), fontsize=7)
                if col == 0:
                    ax.legend(fontsize=6, loc="lower left", ncol=5)
        fig.tight_layout()
        fig.savefig(os.path.join(plotdir, "solvers-bind.png"), dpi=dpi)
        plt.close(fig)



def sol_analysis(d):
    boots, runs = sol_parse(d)
    if not runs:
        return boots, runs, [], {}
    sol_derive(boots, runs)
    L, S = sol_summarize(boots, runs, NUMA_RATIO)
    return boots, runs, L, S


def cmd_solvers(d):
    o = outdir(d, "solvers")
    boots, runs, L, S = sol_analysis(d)
    if not runs:
        print("solvers: no runs in %s" % os.path.join(d, "logs"))
        return 1
    cfg = sol_config_lines(d, boots)
    sol_write_csvs(o, runs, cfg)
    open(os.path.join(o, "solvers-summary.txt"), "w").write(
        "\n".join(["# " + l for l in cfg] + [""] + L) + "\n")
    print("\n".join(L))
    sol_plots(o, runs, S, NUMA_RATIO)
    bad = ["%s %s %s rep %s bind %s places %s" % (
        r["boot"], r["prog"], r["variant"], r["rep"], r["bind"], r["places"])
        for r in runs if r["result"] != "VERIFIED" or r.get("rc") != "0"]
    bad += ["solvers-%s: guest part exit %s" % (b, part_rc(d, "solvers-" + b))
            for b in SOL_BOOTS if part_rc(d, "solvers-" + b) not in (None, 0)]
    for x in bad:
        print("solvers: FAILED: " + x)
    return 1 if bad else 0


# ---------------------------------------------------------------- cost curves
#
# How the costs grow: the distribution's time against the array's size
# (ours, the oracle, the reference; emulated), the request and arming cost
# against the number of ranges (native and emulated), readonly's per-region
# cost against the number of threads (native and emulated). Each curve is
# summarised by its exponent in a log-log least-squares fit (time ~ x^e) and
# by the segment whose local exponent departs most from it (the bend).

def loglog_fit(xs, ys):
    """Exponent of y ~ x^e by least squares on the logs (None if < 2 points)."""
    import math
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x and y and x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else None


def growth(xs, ys, unit=""):
    """One phrase: the fitted exponent, what it means, and where it bends."""
    import math
    e = loglog_fit(xs, ys)
    if e is None:
        return "too few points"
    if e < 0.25:
        what = "flat (a fixed cost dominates)"
    elif e < 0.8:
        what = "sub-linear (a fixed cost amortised)"
    elif e <= 1.15:
        what = "linear"
    elif e <= 1.4:
        what = "slightly super-linear (n log n-like)"
    elif e <= 1.8:
        what = "super-linear"
    else:
        what = "quadratic or worse"
    seg = []
    for i in range(1, len(xs)):
        if xs[i] > xs[i - 1] > 0 and ys[i] > 0 and ys[i - 1] > 0:
            seg.append((math.log(ys[i] / ys[i - 1]) / math.log(xs[i] / xs[i - 1]),
                        xs[i - 1], xs[i]))
    bend = ""
    if len(seg) >= 2:
        far = max(seg, key=lambda t: abs(t[0] - e))
        if abs(far[0] - e) >= 0.3:
            bend = "; bends between %g and %g%s (local exponent %.2f)" % (far[1], far[2], unit,
                                                                          far[0])
        else:
            bend = "; no bend (local exponents %.2f-%.2f)" % (min(t[0] for t in seg),
                                                               max(t[0] for t in seg))
    return "exponent %.2f: %s%s" % (e, what, bend)


# readonly's per-region cost with cached, unchanged items (native, 2 threads):
# (items, microseconds).
RC_ITEMS_TARGETS = ((256, 20.0), (10000, 50.0))


def curves_load(d):
    """The curves' rows: size (dist CSV rows), ranges (AR_RUN), threads
    (RC_RESULT), and the failures."""
    size, ranges, threads, bad = [], [], [], []
    hdr = None
    for name in ("curves-host", "curves-2n", "curves-4n"):
        text = read(log_path(d, name))
        if not text:
            continue
        if name != "curves-host" and part_rc(d, name) != 0:
            bad.append("%s: guest part exit %s" % (name, part_rc(d, name)))
        nodes = {"curves-host": "1", "curves-2n": "2", "curves-4n": "4"}[name]
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("csv,where"):
                hdr = line.split(",")[1:]
            elif line.startswith("csv,") and hdr:
                r = dict(zip(hdr, line.split(",")[1:]))
                if r.get("checksum") != "ok":
                    bad.append("%s: %s %s MiB rep %s: checksum %s" % (
                        name, r.get("variant"), r.get("mib"), r.get("rep"), r.get("checksum")))
                size.append(r)
            elif line.startswith("AR_RUN "):
                r = kv(line)
                if r.get("ok") != "yes":
                    bad.append("%s: arm_ranges %s %s ranges: wrong counts or data" % (
                        name, r.get("how"), r.get("ranges")))
                ranges.append(r)
            elif line.startswith("RC_RESULT "):
                r = kv(line)
                r["nodes"] = nodes
                if r.get("where") == "host-items": # the curve against items
                    r["nodes"] = "items"
                if r.get("ok") != "yes":
                    bad.append("%s: region_cost %s threads: wrong reads or counters" % (
                        name, r.get("threads")))
                threads.append(r)
            elif line.startswith(("CURVE_FAIL", "RC_EXIT rc=1", "RC_EXIT rc=2")):
                bad.append("%s: %s" % (name, line))
    return size, ranges, threads, bad


def curves_figures(size, ranges, threads):
    F = {"size": {}, "ranges": {}, "threads": {}}
    for v in ("ours-default", "oracle", "reference"):
        pts = []
        for m in sorted({int(r["mib"]) for r in size if r["variant"] == v}):
            ts = [float(r["time_ms"]) for r in size if r["variant"] == v and int(r["mib"]) == m]
            pts.append((m, med(ts), min(ts), max(ts), len(ts)))
        if pts:
            F["size"][v] = pts
    # ours / oracle per pair (same MiB and repetition), reference / ours of medians
    pairs = {}
    for r in size:
        if r["variant"] in ("ours-default", "oracle"):
            pairs.setdefault((int(r["mib"]), r["rep"]), {})[r["variant"]] = float(r["time_ms"])
    F["pair_ratio"] = {}
    for m in sorted({k[0] for k in pairs}):
        xs = [p["ours-default"] / p["oracle"] for k, p in pairs.items()
              if k[0] == m and len(p) == 2 and p["oracle"] > 0]
        if xs:
            F["pair_ratio"][m] = (med(xs), min(xs), max(xs), len(xs))
    for where in ("host", "guest-tcg"):
        for how in ("directive", "api"):
            rs = [r for r in ranges if r.get("where") == where and r.get("how") == how]
            pts = []
            for n in sorted({int(r["ranges"]) for r in rs}):
                x = [r for r in rs if int(r["ranges"]) == n]
                m = lambda k: med([num(r[k]) for r in x])
                mp = [num(r["mprotect_us"]) for r in x
                      if num(r.get("mprotect_us", "-1")) > 0]
                pts.append({"n": n, "request": m("request_us"), "arm": m("arm_us"),
                            "mprotect": med(mp) if mp else None,
                            "fault": m("fault_us"), "region": m("region_us"),
                            "armed": m("armed"), "fail_arm": m("fail_arm"), "runs": len(x),
                            "req_range": (min(num(r["request_us"]) for r in x),
                                          max(num(r["request_us"]) for r in x)),
                            "arm_range": (min(num(r["arm_us"]) for r in x),
                                          max(num(r["arm_us"]) for r in x))})
            if pts:
                F["ranges"][(where, how)] = pts
    rs = sorted([r for r in threads if r["nodes"] == "items"], key=lambda r: int(r["items"]))
    if rs:
        F["items"] = [{"k": int(r["items"]), "cost": num(r["cost_us"]),
                       "lo": num(r["cost_min_us"]), "hi": num(r["cost_max_us"])} for r in rs]
    for nodes in ("1", "2", "4"):
        rs = sorted([r for r in threads if r["nodes"] == nodes], key=lambda r: int(r["threads"]))
        if rs:
            F["threads"][nodes] = [{"t": int(r["threads"]), "cost": num(r["cost_us"]),
                                   "lo": num(r["cost_min_us"]), "hi": num(r["cost_max_us"]),
                                   "plain": num(r["plain_us"]), "items": r.get("items"),
                                   "blocks": r.get("blocks"), "regions": r.get("regions")}
                                  for r in rs]
    return F


def curves_lines(F):
    """One line per curve: how it grows and where it bends."""
    L = []
    names = {"ours-default": "ours (default)", "oracle": "oracle (move_pages)",
             "reference": "reference (2008)"}
    for v, pts in F["size"].items():
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        L.append("distribution time against size, %s, %g-%g MiB (guest, %d runs each): %s; "
                 "%.1f-%.1f us per 4 KiB page (emulated)" % (
                     names[v], xs[0], xs[-1], min(p[4] for p in pts), growth(xs, ys, " MiB"),
                     min(y * 1e3 / (x * 256) for x, y in zip(xs, ys)),
                     max(y * 1e3 / (x * 256) for x, y in zip(xs, ys))))
    if F["pair_ratio"]:
        L.append("ours / oracle per pair by size: " + ", ".join(
            "%d MiB %.2f (%.2f-%.2f, %d)" % (m, a, b, c, n)
            for m, (a, b, c, n) in F["pair_ratio"].items()))
    ours = dict((p[0], p[1]) for p in F["size"].get("ours-default", []))
    ref = dict((p[0], p[1]) for p in F["size"].get("reference", []))
    if ours and ref:
        L.append("reference / ours by size: " + ", ".join(
            "%d MiB %.1f" % (m, ref[m] / ours[m]) for m in sorted(ours) if m in ref and ours[m]))
    for (where, how), pts in F["ranges"].items():
        xs = [p["n"] for p in pts]
        w = "native" if where == "host" else "guest"
        L.append("request against ranges, %s (%s), %d-%d ranges: %s; %.1f-%.1f us per range" % (
            how, w, xs[0], xs[-1], growth(xs, [p["request"] for p in pts], " ranges"),
            min(p["request"] / p["n"] for p in pts), max(p["request"] / p["n"] for p in pts)))
        if how == "directive":
            full = [p for p in pts if p["fail_arm"]]
            ok = [p for p in pts if not p["fail_arm"]] or pts
            L.append("arming against ranges (%s), %d-%d ranges: %s; %.1f-%.1f us per armed "
                     "range%s" % (
                         w, ok[0]["n"], ok[-1]["n"],
                         growth([p["n"] for p in ok], [p["arm"] for p in ok], " ranges"),
                         min(p["arm"] / max(p["armed"], 1) for p in pts),
                         max(p["arm"] / max(p["armed"], 1) for p in pts),
                         "; from %d ranges on only %d are armed (vm.max_map_count "
                         "reached: fail_arm %d)" % (full[0]["n"], full[0]["armed"],
                                                    full[0]["fail_arm"]) if full else ""))
            yard = [p for p in ok if p.get("mprotect")]
            if yard:
                # The target is the cost per range at scale; a few ranges pay
                # the fixed cost of reading the mappings.
                last = yard[-1]["arm"] / yard[-1]["mprotect"]
                L.append("arming / one mprotect per range (%s): %s; target <= 2 at %d "
                         "ranges: %s" % (
                             w, ", ".join("%d ranges %.2f" % (p["n"], p["arm"] / p["mprotect"])
                                          for p in yard), yard[-1]["n"],
                             "met" if last <= 2 else
                             ("MISSED" if where == "host" else "emulated")))
        L.append("request per range, %s (%s), largest count %d: %.2f us; target <= 2 "
                 "(native): %s" % (
                     how, w, xs[-1], pts[-1]["request"] / xs[-1],
                     "met" if pts[-1]["request"] / xs[-1] <= 2 else
                     ("MISSED" if where == "host" else "emulated")))
    if F.get("items"):
        pts = F["items"]
        xs = [p["k"] for p in pts]
        cost = {p["k"]: p["cost"] for p in pts}
        goal = [(k, g) for k, g in RC_ITEMS_TARGETS if k in cost]
        L.append("readonly per-region cost against cached unchanged items, native, 2 threads: "
                 "%s us for %s items; %s%s" % (
                     ", ".join("%.1f" % p["cost"] for p in pts),
                     ", ".join(str(x) for x in xs), growth(xs, [p["cost"] for p in pts], " items"),
                     "".join("; target <= %g us at %d items: %s" % (
                         g, k, "met" if cost[k] <= g else "MISSED") for k, g in goal)))
    for nodes, pts in F["threads"].items():
        xs = [p["t"] for p in pts]
        L.append("readonly per-region cost against threads, %s items, %s: %s us for %s threads; "
                 "%s" % (pts[0]["items"], "native (2 cores)" if nodes == "1" else
                         "guest %s nodes" % nodes,
                         ", ".join("%.1f" % p["cost"] for p in pts),
                         ", ".join(str(x) for x in xs),
                         growth(xs, [p["cost"] for p in pts], " threads")))
    return L


def curves_plot(F, png):
    plt = pyplot()
    plt.rcParams.update({"font.size": 8})
    fig, axs = plt.subplots(1, 3, figsize=(13, 3.6))
    ax = axs[0]
    col = {"ours-default": "#1f77b4", "oracle": "#ff7f0e", "reference": "#d62728"}
    for v, pts in F["size"].items():
        xs = [p[0] for p in pts]
        ax.errorbar(xs, [p[1] for p in pts], yerr=[[p[1] - p[2] for p in pts],
                                                  [p[3] - p[1] for p in pts]],
                    marker="o", ms=3, capsize=2, color=col[v], label=v)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("array size (MiB)")
    ax.set_ylabel("request + one pass (ms, EMULATED)")
    ax.set_title("distribution time against size (2-node guest)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    ax = axs[1]
    for (where, how), pts in F["ranges"].items():
        ls = "-" if where == "host" else "--"
        w = "native µs" if where == "host" else "guest, emulated µs"
        xs = [p["n"] for p in pts]
        ax.plot(xs, [p["request"] for p in pts], ls, marker="o", ms=3,
                color="#2ca02c" if how == "directive" else "#9467bd",
                label="request, %s (%s)" % (how, w))
        if how == "directive":
            ax.plot(xs, [p["arm"] for p in pts], ls, marker="s", ms=3, color="#8c564b",
                    label="arming at the fork (%s)" % w)
    ax.axvline(1024, color="#888888", ls=":", lw=1)
    ax.text(1024, 0.03, " 1024 segments", fontsize=6, rotation=90, va="bottom",
            transform=ax.get_xaxis_transform())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("disjoint ranges (one page each)")
    ax.set_ylabel("µs")
    ax.set_title("request and arming cost against ranges")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=6)
    ax = axs[2]
    for nodes, pts in F["threads"].items():
        lab = "native, 1 node" if nodes == "1" else "guest, %s nodes (emulated)" % nodes
        # a median <= 0 (a busy host) has no place on the log axis (the
        # summary gives it), and a bar stops short of the axis' zero
        pts = [p for p in pts if p["cost"] > 0]
        if not pts:
            continue
        xs = [p["t"] for p in pts]
        ax.errorbar(xs, [p["cost"] for p in pts],
                    yerr=[[max(0.0, min(p["cost"] - p["lo"], 0.9 * p["cost"]))
                           for p in pts],
                          [max(0.0, p["hi"] - p["cost"]) for p in pts]],
                    marker="o", ms=3, capsize=2, label=lab)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("threads")
    ax.set_ylabel("readonly cost per region (µs)")
    its = next(iter(F["threads"].values()), [{}])[0].get("items", "?")
    ax.set_title("per-region cost, %s cached unchanged items" % its)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)


def cmd_curves(d):
    o = outdir(d, "curves")
    size, ranges, threads, bad = curves_load(d)
    if not (size or ranges or threads):
        print("curves: no runs in %s" % os.path.join(d, "logs"))
        return 1
    F = curves_figures(size, ranges, threads)
    for name, rows in (("curves-size.csv", size), ("curves-ranges.csv", ranges),
                       ("curves-threads.csv", threads)):
        with open(os.path.join(o, name), "w", newline="") as f:
            f.write("# cost curves (bench/curves.sh): %s; commit %s\n" % (
                config(d)[1].get("curves_params", ""), config(d)[1].get("commit")))
            f.write("# guest times are emulated (QEMU/TCG); host times native\n")
            cols = list(rows[0].keys()) if rows else ["none"]
            w = csv.writer(f, lineterminator="\n")
            w.writerow(cols)
            for r in rows:
                w.writerow([r.get(c, "-") for c in cols])
    L = curves_lines(F)
    open(os.path.join(o, "curves-summary.txt"), "w").write("\n".join(L) + "\n")
    print("\n".join(L))
    curves_plot(F, os.path.join(o, "curves.png"))
    for b in bad:
        print("curves: FAILED: " + b)
    return 1 if bad else 0


def cmd_solvers_profile(d):
    """bench/solvers.sh profile: per program and setting, medians over the
    repetitions of nexttouch's one-time overhead (with and without the
    engine's start-up) against the oracle's, and the engine's profile."""
    boots, runs = sol_parse(d, ["profile"])
    if not runs:
        print("solvers-profile: no runs in %s" % os.path.join(d, "logs"))
        return 1
    sol_derive(boots, runs)
    L = ["where nexttouch's one-time overhead goes (2 nodes, 2 threads, emulated ms; medians "
         "over %d repetitions; O = start-up + directive + iteration 1 - none's iteration 1 of "
         "the same repetition)" % max(int(r["rep"]) for r in runs)]
    for p in SOL_PROGS:
        rs = [r for r in runs if r["prog"] == p]
        none = {r["rep"]: r["t1"] for r in rs if r["variant"] == "none"}
        orc = [sol_overhead(r, none[r["rep"]]) for r in rs
               if r["variant"] == "oracle" and r["rep"] in none]
        L.append("")
        L.append("%s: oracle O %s ms (move_pages %s ms, %s calls, %s TLB shoot-downs); none "
                 "iteration 1 %s ms (%s TLB shoot-downs); ideal iteration %s ms" % (
                     p, fmt(med(orc), ".1f"),
                     fmt(med([num(r.get("oracle", {}).get("ms")) for r in rs
                              if r["variant"] == "oracle"]), ".1f"),
                     fmt(med([num(r.get("oracle", {}).get("calls")) for r in rs
                              if r["variant"] == "oracle"]), ".0f"),
                     fmt(med([r.get("tlb") for r in rs if r["variant"] == "oracle"]), ".0f"),
                     fmt(med(list(none.values())), ".1f"),
                     fmt(med([r.get("tlb") for r in rs if r["variant"] == "none"]), ".0f"),
                     fmt(med([r["tmed"] for r in rs if r["variant"] == "ideal"]), ".1f")))
        L.append("  %-34s %5s %7s %7s %7s %7s %6s %7s %8s %7s %7s %7s %6s" % (
            "setting", "runs", "O", "/oracle", "-start", "startup", "dir", "iter1", "faults",
            "pg/flt", "arm", "fault*", "TLB"))
        for st in sorted({r.get("setting", "default") for r in rs if r["variant"] == "nexttouch"}):
            nt = [r for r in rs if r["variant"] == "nexttouch" and r.get("setting") == st
                  and r["rep"] in none]
            if not nt:
                continue
            o = [sol_overhead(r, none[r["rep"]]) for r in nt]
            sm = lambda k: med([num(r.get("summary", {}).get(k)) for r in nt])
            su = med([sol_startup(r) for r in nt])
            L.append("  %-34s %5d %7.1f %7s %7s %7s %6s %7s %8s %7s %7s %7s %6s" % (
                st, len(nt), med(o), fmt(med(o) / med(orc) if orc and med(orc) else None, ".2f"),
                fmt((med(o) - su) / med(orc) if orc and med(orc) else None, ".2f"),
                fmt(su, ".1f"),
                fmt(med([r["directive_ms"] for r in nt]), ".1f"),
                fmt(med([r["t1"] for r in nt]), ".1f"), fmt(sm("faults"), ".0f"),
                fmt(sm("pages_armed") / sm("faults") if sm("faults") else None, ".1f"),
                fmt(sm("arm_ms"), ".1f"), fmt(sm("fault_ms"), ".1f"),
                fmt(med([r.get("tlb") for r in nt]), ".0f")))
    L.append("")
    L.append("(/oracle: O over the oracle's O; -start: the same without the engine's start-up; "
             "* the time in the fault path, summed over the threads)")
    o = outdir(d, "solvers-profile")
    open(os.path.join(o, "profile.txt"), "w").write("\n".join(L) + "\n")
    print("\n".join(L))
    bad = [r for r in runs if r["result"] != "VERIFIED" or r.get("rc") != "0"]
    return 1 if bad or part_rc(d, "solvers-profile") != 0 else 0


# ---------------------------------------------------------------- summary

def mark(ok):
    return "met   " if ok else "MISSED"


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


# ---------------------------------------------------------------- wrappers

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


# ---------------------------------------------------------------- the page

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


def rst_table(head, rows, right=()):
    """A simple reStructuredText table; columns in `right` right-aligned."""
    rows = [[str(c) for c in r] for r in rows]
    w = [max(len(x) for x in col) for col in zip(head, *rows)]
    line = "  ".join("=" * n for n in w)

    def fmt_row(r):
        return "  ".join(c.rjust(w[i]) if i in right else c.ljust(w[i])
                         for i, c in enumerate(r)).rstrip()
    return [line, fmt_row(head), line] + [fmt_row(r) for r in rows] + [line]


def rst_heading(text, ch):
    return ["", text, ch * len(text), ""]


def rst_file(name):
    return "``bench/results/%s``" % name


def rst_image(name, alt):
    return [".. image:: ../bench/results/%s" % name, "   :alt: %s" % alt, ""]


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
              "(``bench/region_cost.c``: each item %s pages, every thread takes its pointer to "
              "every item and reads one value; blocks of regions with and without readonly "
              "alternating; per block pair and region, *µs per region*: the time in readonly's "
              "calls (begin and end, and the slowest thread's lookups less its reads of the "
              "originals), *whole region*: the region's time with readonly less without; the "
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


COMMANDS = {"dist": cmd_dist, "scale": cmd_scale, "accuracy": cmd_accuracy, "apps": cmd_apps, "curves": cmd_curves,
            "wrappers": cmd_wrappers,
            "readonly": cmd_readonly, "solvers": cmd_solvers,
            "solvers-profile": cmd_solvers_profile, "summary": cmd_summary,
            "page": cmd_page}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in COMMANDS:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
