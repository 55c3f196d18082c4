"""The cost curves: size, ranges and threads, with their fitted growth."""

from reportlib.common import *  # noqa: F401,F403


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
