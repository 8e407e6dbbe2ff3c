"""ctest python_trace_<name>: traces/<name>.py under python3 matches its recording.

Usage: run_trace.py TRACE.py RECORDED.pb PTO_SIM CONFIG

The script runs as a user runs it (its assert_close checks run in CPython on
the simulated results, so exit 0 means they passed), recording its run
(PTO_SIM_RECORD) and writing each launch's stats (PTO_SIM_OUT). That
recording must equal, byte for byte, the build's RECORDED.pb (which ptoc
recorded the same way). Then RECORDED.pb replays through pto_sim without
Python: the same launches with the same makespans, each launch's stats.json
equal to the live run's but for the checks, which the recording adds (all
passing; at least one unless the stream is timing-only).
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
    trace, recorded, pto_sim, config = sys.argv[1:5]
    require_torch()
    work = tempfile.mkdtemp(prefix="run_trace_")
    try:
        return compare(trace, recorded, pto_sim, config, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def launch_stats(out_dir, launches, live):
    """Each launch's stats.json: the live run's DIR/launch_<n>_<call>, the
    replay's DIR/launch_<n>."""
    stats = []
    for n, name in enumerate(launches):
        if live:  # named after the call: "kernel" or "Program.method"
            (match,) = [d for d in os.listdir(out_dir) if d.startswith(f"launch_{n}_")]
            path = os.path.join(out_dir, match, "stats.json")
        else:
            path = os.path.join(out_dir, f"launch_{n}", "stats.json")
        with open(path) as f:
            stats.append(json.load(f))
    return stats


def compare(trace, recorded, pto_sim, config, work):
    recording = os.path.join(work, "run.pb")
    env = dict(os.environ, PTO_SIM_RECORD=recording, PTO_SIM_OUT=os.path.join(work, "live"))
    ran = subprocess.run([PYTHON, os.path.basename(trace)], cwd=os.path.dirname(trace),
                         capture_output=True, text=True, timeout=240, env=env)
    if ran.returncode != 0:
        print(ran.stdout + ran.stderr)
        print(f"FAIL: python3 {trace} exited {ran.returncode}")
        return 1
    with open(recording, "rb") as a, open(recorded, "rb") as b:
        if a.read() != b.read():
            print(f"FAIL: this run's recording differs from the build's {recorded} "
                  "(recording is not deterministic)")
            return 1
    replay_out = os.path.join(work, "replay")
    replay = subprocess.run([pto_sim, "--config", config, "--trace", recorded, "--out",
                             replay_out], capture_output=True, text=True, timeout=240)
    if replay.returncode != 0:
        print(replay.stdout + replay.stderr)
        print(f"FAIL: the recording's replay exited {replay.returncode}")
        return 1
    py = PYTHON_LAUNCH.findall(ran.stderr)
    ref = SIM_LAUNCH.findall(replay.stdout)
    if [name for _, name, _ in py] != [name for _, name, _ in ref]:
        print(f"FAIL: launches differ: python {py} vs the replay {ref}")
        return 1
    for (n, name, python_us), (_, _, replay_us) in zip(py, ref):
        if python_us != replay_us:
            print(f"FAIL: launch {n} '{name}' makespan {python_us} us (python) vs {replay_us} us "
                  "(replay)")
            return 1
    names = [name for _, name, _ in py]
    live = launch_stats(os.path.join(work, "live"), names, live=True)
    replayed = launch_stats(replay_out, names, live=False)
    for n, (a, b) in enumerate(zip(live, replayed)):
        a.pop("checks"), b.pop("checks")
        # Where each came from (a pipe and the recording): not a result.
        a.pop("provenance", None), b.pop("provenance", None)
        if a != b:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            print(f"FAIL: launch {n}: the replay's stats.json differs from the live run's in {keys}")
            return 1
    passed, failed = re.search(r"^checks: (\d+) passed, (\d+) failed", replay.stdout,
                               re.M).groups()
    timing_only = ", timing only" in replay.stdout.splitlines()[0]
    if failed != "0" or (passed == "0" and not timing_only):
        print(f"FAIL: the replay's checks: {passed} passed, {failed} failed")
        return 1
    print(f"OK: {len(py)} launches; the recording is the build's byte for byte and replays to "
          f"the live run's stats and makespans, {passed} checks passing")
    return 0


if __name__ == "__main__":
    code = main()
    sys.exit(code if code != SKIP else 1)
