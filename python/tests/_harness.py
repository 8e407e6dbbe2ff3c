"""Shared by the python_* ctests: scripts run as a user runs them.

Each test script runs scripts of scripts/ under Debian's interpreter (the
PTO_PYTHON ctest sets) with the build's pypto package first on the path, and
asserts on their exit codes, stdout and stderr.
"""

import os
import subprocess
import sys
import unittest

PYTHON = os.environ.get("PTO_PYTHON", "/usr/bin/python3")
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "scripts")
REPO = os.path.dirname(os.path.dirname(HERE))


def _built(name):
    from pypto import _paths  # the build's package (PYTHONPATH)

    return getattr(_paths, name)


PTO_SIM = os.environ.get("PTO_SIM_BIN") or _built("PTO_SIM")
PTOC = os.environ.get("PTOC_BIN") or _built("PTOC")
SKIP = 77  # ctest SKIP_RETURN_CODE


def require_torch():
    """Exits 77 (ctest: skipped) with a message where torch is missing."""
    probe = subprocess.run([PYTHON, "-c", "import torch"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"SKIPPED: {PYTHON} cannot import torch (apt-get install python3-torch)")
        sys.exit(SKIP)


def run_script(path, *args, env=None, cwd=None, module=False):
    environment = dict(os.environ)
    environment.update(env or {})
    command = [PYTHON, "-m", path] if module else [PYTHON, path]
    if path == "-c":  # run_script("-c", code)
        command = [PYTHON, "-c", args[0]]
        args = args[1:]
    return subprocess.run(command + list(args), capture_output=True, text=True,
                          env=environment, cwd=cwd or SCRIPTS, timeout=240)


def main():
    require_torch()
    unittest.main(verbosity=2)
