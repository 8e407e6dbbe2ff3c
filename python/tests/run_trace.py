"""ctest python_trace_<name>: traces/<name>.py under python3 matches ptoc + pto_sim.

Usage: run_trace.py TRACE.py COMPILED.pb PTO_SIM CONFIG

The script runs as a user runs it (its assert_close checks run in CPython on
the simulated results, so exit 0 means they passed); then the compiled stream
of the same file runs through pto_sim. Both paths make the same launches on
one chip each, so every launch takes the same simulated time to the
nanosecond: the script's calls continue one chip (L2 contents and time) as
the compiled stream's launches do.
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
    for (n, name, python_us), (_, _, ptoc_us) in zip(py, ref):
        if python_us != ptoc_us:
            print(f"FAIL: launch {n} '{name}' makespan {python_us} us (python) vs {ptoc_us} us "
                  "(ptoc)")
            return 1
    print(f"OK: {len(py)} launches, the same makespans in both")
    return 0


if __name__ == "__main__":
    code = main()
    sys.exit(code if code != SKIP else 1)
