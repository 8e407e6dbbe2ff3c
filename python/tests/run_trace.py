"""ctest python_trace_<name>: traces/<name>.py under python3 matches ptoc + pto_sim.

Usage: run_trace.py TRACE.py COMPILED.pb PTO_SIM CONFIG

The script runs as a user runs it (its assert_close checks run in CPython on
the simulated results, so exit 0 means they passed); then the compiled stream
of the same file runs through pto_sim. Both paths make the same launches, and
the first launch, which starts on an idle chip in both, takes the same
simulated time to the nanosecond. Later launches run on a fresh chip per call
(a cold L2), so only their names are compared.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import PYTHON, SKIP, require_torch  # noqa: E402

PYTHON_LAUNCH = re.compile(r"^pto_sim: launch (\d+) '([^']+)': makespan ([0-9.]+) us", re.M)
SIM_LAUNCH = re.compile(r"^launch (\d+) '([^']+)': makespan ([0-9.]+) us", re.M)


def main():
    trace, compiled, pto_sim, config = sys.argv[1:5]
    require_torch()
    ran = subprocess.run([PYTHON, os.path.basename(trace)], cwd=os.path.dirname(trace),
                         capture_output=True, text=True, timeout=240)
    if ran.returncode != 0:
        print(ran.stdout + ran.stderr)
        print(f"FAIL: python3 {trace} exited {ran.returncode}")
        return 1
    sim = subprocess.run([pto_sim, "--config", config, "--trace", compiled],
                         capture_output=True, text=True, timeout=240)
    if sim.returncode != 0:
        print(sim.stdout + sim.stderr)
        return 1
    py = PYTHON_LAUNCH.findall(ran.stderr)
    ref = SIM_LAUNCH.findall(sim.stdout)
    if [name for _, name, _ in py] != [name for _, name, _ in ref]:
        print(f"FAIL: launches differ: python {py} vs pto_sim {ref}")
        return 1
    if py[0][2] != ref[0][2]:
        print(f"FAIL: first launch makespan {py[0][2]} us (python) vs {ref[0][2]} us (ptoc)")
        return 1
    print(f"OK: {len(py)} launches, first {py[0][2]} us in both")
    return 0


if __name__ == "__main__":
    code = main()
    sys.exit(code if code != SKIP else 1)
