"""Upstream's tests/st/runtime program forms under python3: Opaque entries,
kernels from factories under other names, pl.submit, attrs=, module dicts."""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import main, run_script  # noqa: E402


class StRuntimeForm(unittest.TestCase):
    def test_opaque_entries_factories_and_submits_pass_their_checks(self):
        r = run_script("st_runtime_form.py")
        self.assertEqual(r.returncode, 0, r.stderr)  # every assert_close passed
        self.assertIn("st form: ok (pypto planner named", r.stdout)
        # Three launches: the Opaque entry (one task for the whole output,
        # then one per band), the same through run(program) with its output
        # allocated, and the factory program (scale, then the matmul).
        launches = re.findall(r"launch \d+ '([^']+)': makespan ([0-9.]+) us", r.stderr)
        self.assertEqual([name for name, _ in launches], ["main", "main", "main"])


if __name__ == "__main__":
    main()
