#!/usr/bin/python3
"""The suite's headline figures per guest kernel, from bench/kernels.sh's runs.

usage: bench/report_kernels.py DIR [--page]

DIR holds one run directory of bench/suite.sh per kernel (DIR/5.10, DIR/6.1,
DIR/6.12: the families dist, solvers and readonly). Prints one table, a
column per kernel, and writes DIR/kernels.csv and DIR/kernels.rst; with
--page also bench/results/kernels.csv and the generated section of
docs/Benchmarks.rst between its KERNELS markers.

Every figure is a ratio of variants measured in the same guest run (times
are emulated), or a time of the same kind on each kernel.
"""
import csv
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

BEGIN = ".. BEGIN GENERATED KERNELS (bench/report_kernels.py)"
END = ".. END GENERATED KERNELS"


def kernel_release(d):
    """The guest's `uname -r`, as the distribution part printed it."""
    t = report.read(os.path.join(d, "logs", "dist-2n.log"))
    m = re.search(r"^guest-kernel,(\S+)", t, re.M)
    return m.group(1) if m else "?"


def mech_pairs(rows):
    """Median of ours-move_pages / ours-mbind over the pairs of one repetition
    number (the two mechanisms back to back, alternating), and the count."""
    by = {}
    for r in rows:
        if r["where"] == "guest-tcg" and r["variant"] in ("ours-move_pages", "ours-mbind"):
            by.setdefault(r["rep"], {})[r["variant"]] = r
    ps = [d["ours-move_pages"]["time_ms"] / d["ours-mbind"]["time_ms"]
          for d in by.values() if len(d) == 2]
    local = min((r["local_pct"] for d in by.values() for r in d.values()), default=None)
    return (statistics.median(ps) if ps else None), len(ps), local


def figures(d):
    """(label, value, format, note) rows of one kernel's run."""
    F = report.figures(d)
    out = []
    f = F.get("dist", {})
    p = f.get("pairs")
    out.append(("distribution: ours/oracle (target <= %.2f)" % report.TARGET_OURS_ORACLE,
                p and p["median"], ".2f", p and "ours/oracle %d pairs" % p["n"]))
    r = f.get("ref_ours")
    out.append(("distribution: reference/ours (target >= %.0f)" % report.TARGET_REF_OURS,
                r and r["ratio"], ".1f", r and "reference %d runs" % r["n"]))
    m, n, local = mech_pairs(F.get("dist_rows", []))
    out.append(("next-touch: move_pages/mbind time", m, ".2f",
                n and "mechanisms %d pairs, local >= %.1f %%" % (n, local)))
    for prog in report.SOL_PROGS:
        c = F["sol"].get(prog, {}).get("_cmp")
        out.append(("%s: nexttouch/oracle overhead (target <= %.2f)"
                    % (prog, report.TARGET_SOLVER_ORACLE), c and c["ratio"], ".2f",
                    c and "%s %d reps" % (prog, c["n"])))
    for nodes in ("2", "4"):
        t = F["ro_t"].get(("guest", nodes), {}).get("ro_ideal")
        out.append(("readonly/ideal per iteration, %s nodes (target <= %.2f)"
                    % (nodes, report.TARGET_RO_IDEAL), t and t["median"], ".3f",
                    t and "readonly %s nodes %d reps" % (nodes, t["n"])))
    for x in F["rc"]:
        if x["where"] == "guest" and x.get("nodes") == "2" and x["iters"] is not None:
            out.append(("readonly region, %s unchanged items, 2 nodes (ideal iterations)"
                        % x.get("items"), x["iters"], ".4f", None))
    return out


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--page"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    root = argv[1]
    kernels = sorted((k for k in os.listdir(root) if os.path.isdir(os.path.join(root, k))),
                     key=lambda k: [int(x) for x in k.split(".")])
    if not kernels:
        print("report_kernels: no run in %s" % root)
        return 1
    cols = {k: figures(os.path.join(root, k)) for k in kernels}
    labels = []
    for k in kernels:
        for lab, _, _, _ in cols[k]:
            if lab not in labels:
                labels.append(lab)
    val = {(k, lab): (v, f) for k in kernels for lab, v, f, _ in cols[k]}
    releases = [kernel_release(os.path.join(root, k)) for k in kernels]
    head = ["figure"] + ["Linux %s" % k for k in kernels]
    rows = [["guest kernel"] + releases]
    for lab in labels:
        rows.append([lab] + [report.fmt(*val.get((k, lab), (None, ".2f")))
                             for k in kernels])
    notes = ["%s: %s" % (k, ", ".join(n for _, _, _, n in cols[k] if n)) for k in kernels]
    w = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    print("\n".join("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip()
                    for r in [head] + rows))
    print("\n".join(["(counts) " + n for n in notes]))
    with open(os.path.join(root, "kernels.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["figure"] + kernels)
        for r in rows:
            wr.writerow(r)
    rst = report.rst_table(head, rows, right=tuple(range(1, len(head))))
    open(os.path.join(root, "kernels.rst"), "w").write("\n".join(rst) + "\n")
    if len(argv) == 3:
        os.makedirs(report.RESULTS, exist_ok=True)
        with open(os.path.join(root, "kernels.csv")) as src, \
                open(os.path.join(report.RESULTS, "kernels.csv"), "w") as dst:
            dst.write(src.read())
        text = open(report.PAGE).read()
        if BEGIN not in text or END not in text:
            print("report_kernels: %s has no '%s' ... '%s' section" % (report.PAGE, BEGIN, END))
            return 1
        head_, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        body = [BEGIN, ""] + rst + ["", report.rst_file("kernels.csv") + "; counts: " +
                                    "; ".join(notes) + ".", "", END]
        open(report.PAGE, "w").write(head_ + "\n".join(body) + tail)
        print("report_kernels: %s and bench/results/kernels.csv" %
              os.path.relpath(report.PAGE, report.TOP))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
