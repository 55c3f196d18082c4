"""Placement accuracy: the share of pages on their first toucher's node."""

from reportlib.common import *  # noqa: F401,F403

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
