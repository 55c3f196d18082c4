"""The Jacobi and CG solvers: runs, iterations, arrays, the oracle."""

from reportlib.common import *  # noqa: F401,F403

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
