"""Device-side control as a user meets it: the reduced paged attention of
traces/ragged_attention.py (per-request context lengths) under python3, its
per-block times from the launch's perfetto.json, and kernel.lower(*args)."""

import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import REPO, main, run_script  # noqa: E402

CONTEXT_LENS = [100, 300, 700, 1500]  # traces/ragged_attention.py
KV_BLOCKS = [(n + 63) // 64 for n in CONTEXT_LENS]  # 2, 5, 11, 24


class RaggedAttention(unittest.TestCase):
    def test_each_blocks_time_follows_its_requests_length(self):
        with tempfile.TemporaryDirectory() as out:
            r = run_script(os.path.join(REPO, "traces", "ragged_attention.py"),
                           env={"PTO_SIM_OUT": out})
            self.assertEqual(r.returncode, 0, r.stderr)  # the script's assert_close passed
            launch = os.path.join(out, os.listdir(out)[0])
            with open(os.path.join(launch, "perfetto.json"), encoding="utf-8") as f:
                events = json.load(f)["traceEvents"]
        kernel_us = {}
        for e in events:
            args = e.get("args", {})
            if "kernel-duration-us" in args:
                kernel_us[args["block"]] = float(args["kernel-duration-us"])
        self.assertEqual(sorted(kernel_us), [0, 1, 2, 3])
        times = [kernel_us[b] for b in range(4)]
        # Longer contexts take longer, and the time per KV block is one
        # cost: the slopes between any two requests agree within 25 % (the
        # last, partial block of each moves fewer bytes: 36, 44, 60 and 28
        # of 64 tokens).
        self.assertEqual(times, sorted(times))
        slopes = [(times[j] - times[i]) / (KV_BLOCKS[j] - KV_BLOCKS[i])
                  for i in range(4) for j in range(i + 1, 4)]
        self.assertLess(max(slopes) / min(slopes), 1.25, (times, slopes))
        # A fixed part (dispatch-to-start, the query load, the final store)
        # below two KV blocks' worth.
        intercept = times[0] - slopes[0] * KV_BLOCKS[0]
        self.assertGreater(intercept, 0)
        self.assertLess(intercept, 2 * min(slopes))


class TimingOnlyControl(unittest.TestCase):
    def test_a_tensor_spec_with_values_decides_a_meta_launchs_trip_count(self):
        r = run_script("meta_control.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        launches = re.findall(r"makespan ([0-9.]+) us", r.stderr)
        self.assertEqual(len(launches), 2)
        two, eight = (float(t) for t in launches)
        # Eight 64 KiB copies take longer than two (the loop ran as read).
        self.assertGreater(eight, 2 * two)

    def test_a_meta_tensor_that_decides_control_is_a_located_error(self):
        r = run_script("meta_control.py", "--meta-count")
        self.assertEqual(r.returncode, 2)
        self.assertIn("meta_control.py:16:30: error:", r.stderr)
        self.assertIn("'cfg' decides control here, but this timing-only run has no contents for it",
                      r.stderr)


class Lowering(unittest.TestCase):
    def test_lower_with_arguments_compiles_the_call(self):
        r = run_script("lowered.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("lowered: 1 fn(s)", r.stdout)

    def test_lower_reports_ptocs_located_error(self):
        r = run_script("lowered.py", "--bad")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("rejected: ", r.stdout)
        self.assertIn("lowered.py:21:45: error:", r.stdout)
        self.assertIn("valid_shape[1] is 100 but the tile is [16, 64]", r.stdout)


if __name__ == "__main__":
    main()
