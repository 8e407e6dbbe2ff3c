"""ctest python_trace_<name>: traces/<name>.py under python3 matches ptoc + pto_sim.

Usage: run_trace.py TRACE.py COMPILED.pb PTO_SIM CONFIG

The script runs as a user runs it (its assert_close checks run in CPython on
the simulated results, so exit 0 means they passed), recording its run
(PTO_SIM_RECORD) and writing each launch's stats (PTO_SIM_OUT); then the
compiled stream of the same file runs through pto_sim. Both paths make the
same launches on one chip each, so every launch takes the same simulated time
to the nanosecond: the script's calls continue one chip (L2 contents and
time) as the compiled stream's launches do. Last, the recording replays
through pto_sim: each launch's stats.json equals the live run's but for the
checks, which the recording adds (as many as the ptoc path's, all passing).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import PYTHON, SKIP, require_torch  # noqa: E402

PYTHON_LAUNCH = re.compile(r"^pto_sim: launch (\d+) '([^']+)': makespan ([0-9.]+) us", re.M)
SIM_LAUNCH = re.compile(r"^launch (\d+) '([^']+)': makespan ([0-9.]+) us", re.M)


def main():
    trace, compiled, pto_sim, config = sys.argv[1:5]
    require_torch()
    work = tempfile.mkdtemp(prefix="run_trace_")
    try:
        return compare(trace, compiled, pto_sim, config, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def launch_stats(out_dir, launches, live):
    """Each launch's stats.json: the live run's DIR/launch_<n>_<call>, the
    replay's DIR/launch_<n> (DIR itself for a single launch)."""
    stats = []
    for n, name in enumerate(launches):
        if live:  # named after the call: "kernel" or "Program.method"
            (match,) = [d for d in os.listdir(out_dir) if d.startswith(f"launch_{n}_")]
            path = os.path.join(out_dir, match, "stats.json")
        elif len(launches) == 1:
            path = os.path.join(out_dir, "stats.json")
        else:
            path = os.path.join(out_dir, f"launch_{n}", "stats.json")
        with open(path) as f:
            stats.append(json.load(f))
    return stats


def compare(trace, compiled, pto_sim, config, work):
    recording = os.path.join(work, "run.pb")
    env = dict(os.environ, PTO_SIM_RECORD=recording, PTO_SIM_OUT=os.path.join(work, "live"))
    ran = subprocess.run([PYTHON, os.path.basename(trace)], cwd=os.path.dirname(trace),
                         capture_output=True, text=True, timeout=240, env=env)
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
    replay_out = os.path.join(work, "replay")
    replay = subprocess.run([pto_sim, "--config", config, "--trace", recording, "--out",
                             replay_out], capture_output=True, text=True, timeout=240)
    if replay.returncode != 0:
        print(replay.stdout + replay.stderr)
        print(f"FAIL: the recording's replay exited {replay.returncode}")
        return 1
    names = [name for _, name, _ in py]
    live = launch_stats(os.path.join(work, "live"), names, live=True)
    replayed = launch_stats(replay_out, names, live=False)
    for n, (a, b) in enumerate(zip(live, replayed)):
        a.pop("checks"), b.pop("checks")
        if a != b:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            print(f"FAIL: launch {n}: the replay's stats.json differs from the live run's in {keys}")
            return 1
    checks = re.compile(r"^checks: (\d+) passed, (\d+) failed", re.M)
    recorded, expected = checks.search(replay.stdout).groups(), checks.search(sim.stdout).groups()
    if recorded != expected:
        print(f"FAIL: the replay's checks (passed, failed) {recorded} vs the ptoc path's {expected}")
        return 1
    print(f"OK: {len(py)} launches, the same makespans in both; the recording replays to the "
          f"same stats and {recorded[0]} passing checks")
    return 0


if __name__ == "__main__":
    code = main()
    sys.exit(code if code != SKIP else 1)
