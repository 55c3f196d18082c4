"""The distribution benchmark (nexttouch_dist): 512 MB distributed by
next-touch, at user level and against the reference."""

from reportlib.common import *  # noqa: F401,F403

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
