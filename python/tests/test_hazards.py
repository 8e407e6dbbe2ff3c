"""Races found from the program's order: the same hazards whatever the
timing of the run, for a script's recorded stream and every bundled trace."""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import PTO_SIM, PTOC, REPO, SCRIPTS, main  # noqa: E402

CONFIG = os.path.join(REPO, "configs", "ascend.yaml")
TRACES = os.path.join(os.path.dirname(os.path.dirname(PTO_SIM)), "traces")

# Timing keys that move every task's start and end, and the scheduler
# threads: none of them may change a trace's hazards.
TIMINGS = (
    [],
    ["--set", "core.gm_to_ub_bytes_per_cycle=1"],
    ["--set", "aicpu.scheduler_threads=1"],
    ["--set", "aicpu.submit_base_ns=20000"],
    ["--set", "core.vector_binary_bytes_per_cycle=16", "--set", "gm.hbm_bandwidth_bytes_per_s=2e11"],
)


def simulate(trace, extra, out=None):
    command = [PTO_SIM, "--config", CONFIG, "--trace", trace, *extra]
    if out:
        command += ["--out", out, "--summary-only"]
    return subprocess.run(command, capture_output=True, text=True, timeout=280)


def hazard_lines(trace, extra):
    """The run's hazards as stats.json stores them (every one, not the
    printed first 50), and its exit code."""
    with tempfile.TemporaryDirectory() as out:
        r = simulate(trace, extra, out)
        if not os.path.exists(os.path.join(out, "stats.json")):
            raise AssertionError(f"{trace} {extra}: exit {r.returncode}\n{r.stderr}")
        hazards = []
        k = 0
        while os.path.isdir(os.path.join(out, f"launch_{k}")):  # each launch's own file
            with open(os.path.join(out, f"launch_{k}", "stats.json")) as f:
                hazards += json.load(f).get("hazards", [])
            k += 1
    return [h["line"] for h in hazards], r.returncode


class GatedRace(unittest.TestCase):
    """The predicated update of y depends on the gate, not on y's writer."""

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp()
        cls.trace = os.path.join(cls.work, "gated_race.pb")
        r = subprocess.run([PTOC, "gated_race.py", "-o", cls.trace], capture_output=True,
                           text=True, cwd=SCRIPTS, timeout=240)
        assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        for name in os.listdir(cls.work):
            os.remove(os.path.join(cls.work, name))
        os.rmdir(cls.work)

    def test_raw_and_waw_on_y_under_every_timing(self):
        first = None
        for extra in TIMINGS:
            lines, code = hazard_lines(self.trace, extra)
            self.assertEqual(len(lines), 2, (extra, lines))
            self.assertTrue(lines[0].startswith("hazard: RAW on y bytes [0, 131072)"), lines)
            self.assertTrue(lines[1].startswith("hazard: WAW on y bytes [0, 131072)"), lines)
            self.assertEqual(code, 0)  # reported, not failed
            if first is None:
                first = lines
            self.assertEqual(lines, first, extra)

    def test_fail_on_hazard_exits_one_under_every_timing(self):
        for extra in TIMINGS[:3]:
            r = simulate(self.trace, [*extra, "--fail-on-hazard"])
            self.assertEqual(r.returncode, 1, (extra, r.stdout, r.stderr))
            self.assertIn("hazards: 2", r.stdout)


class BundledTraces(unittest.TestCase):
    def test_every_trace_has_no_hazards_under_five_timings(self):
        traces = sorted(glob.glob(os.path.join(TRACES, "*.pb")))
        # The stress traces are built only for the heavy label and benchmarks.
        traces = [t for t in traces if not os.path.basename(t).startswith("stress_")]
        self.assertGreaterEqual(len(traces), 25, TRACES)
        for trace in traces:
            for extra in TIMINGS:
                lines, code = hazard_lines(trace, extra)
                self.assertEqual(lines, [], (os.path.basename(trace), extra))


if __name__ == "__main__":
    main()
