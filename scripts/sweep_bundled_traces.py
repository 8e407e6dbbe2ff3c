#!/usr/bin/python3
"""Every bundled trace on chips of 1 to 48 clusters (ctest sweep_bundled_traces, label heavy).

Runs `pto_sim sweep --vary chip.clusters=1,2,4,8,12,16,24,32,48` on each
build/traces/*.pb (the stress traces aside: they have no widths to size) and
checks that every point succeeds, except where the program itself cannot run
on so small a chip -- the failures below, each with its exit code and the
reason pto_sim must give. A trace whose widths are literals where a PyPTO
kernel would size itself to the chip fails here.

Usage: scripts/sweep_bundled_traces.py --pto-sim BIN --config YAML --traces DIR
"""

import argparse
import csv
import glob
import os
import shutil
import subprocess
import sys
import tempfile

CLUSTERS = [1, 2, 4, 8, 12, 16, 24, 32, 48]

# (trace, clusters) -> (exit code, words of the reason): what the program
# asks for and a chip that small cannot give.
EXPECTED_FAILURES = {
    # Upstream's example: the QK matmul's 4 AIC blocks launch with
    # sync_start, so 4 clusters must be free at once.
    ("paged_attention", 1): (3, "REQUIRE_SYNC_START_INVALID"),
    ("paged_attention", 2): (3, "REQUIRE_SYNC_START_INVALID"),
    # A soft (GM-polling) barrier of 4 AIV blocks: the blocks that arrive
    # spin until the others come, which 2 AIV cores never run.
    ("soft_barrier", 1): (3, "soft syncall"),
    ("soft_handoff", 1): (3, "soft syncall"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pto-sim", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--traces", required=True)
    args = parser.parse_args()
    traces = sorted(p for p in glob.glob(os.path.join(args.traces, "*.pb"))
                    if not os.path.basename(p).startswith("stress"))
    if not traces:
        print(f"no traces in {args.traces}; build them first (cmake --build build)")
        return 2
    failures = 0
    work = tempfile.mkdtemp(prefix="pto_sweep_bundled_")
    try:
        for trace in traces:
            name = os.path.splitext(os.path.basename(trace))[0]
            out = os.path.join(work, name)
            run = subprocess.run(
                [args.pto_sim, "sweep", "--config", args.config, "--trace", trace,
                 "--vary", "chip.clusters=" + ",".join(map(str, CLUSTERS)), "--summary-only",
                 "--out", out], capture_output=True, text=True)
            table = os.path.join(out, "sweep.csv")
            if not os.path.exists(table):
                print(f"FAIL {name}: the sweep wrote no sweep.csv (exit {run.returncode})\n"
                      f"{run.stderr[-2000:]}")
                failures += 1
                continue
            with open(table) as f:
                rows = list(csv.DictReader(f))
            for row in rows:
                clusters = int(row["chip.clusters"])
                code = int(row["exit_code"])
                want_code, reason = EXPECTED_FAILURES.get((name, clusters), (0, ""))
                if code != want_code or reason not in row["error"]:
                    print(f"FAIL {name} on {clusters} clusters: exit {code} ({row['error']}); "
                          f"expected exit {want_code}" + (f" saying '{reason}'" if reason else ""))
                    failures += 1
            print(f"ok   {name}: " + " ".join(f"{r['chip.clusters']}:{r['exit_code']}"
                                              for r in rows))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(traces)} traces on {len(CLUSTERS)} chip sizes: {failures} unexpected result(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
