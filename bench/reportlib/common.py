"""What every family uses: the run directory, number formatting, the
targets, the page's reStructuredText helpers."""

import csv
import os
import random
import re
import shutil
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

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


def mark(ok):
    return "met   " if ok else "MISSED"


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
