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

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from reportlib.accuracy import cmd_accuracy  # noqa: E402
from reportlib.apps import cmd_apps  # noqa: E402
from reportlib.curves import cmd_curves  # noqa: E402
from reportlib.dist import cmd_dist  # noqa: E402
from reportlib.page import cmd_page, cmd_scale  # noqa: E402
from reportlib.readonly import cmd_readonly  # noqa: E402
from reportlib.solvers import cmd_solvers, cmd_solvers_profile  # noqa: E402
from reportlib.summary import cmd_summary  # noqa: E402
from reportlib.wrappers import cmd_wrappers  # noqa: E402


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
