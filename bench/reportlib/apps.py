"""The applications in bench/apps."""

from reportlib.common import *  # noqa: F401,F403


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
