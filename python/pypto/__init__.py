"""pto_sim's pypto: PyPTO scripts run unchanged under CPython, kernels on pto_sim.

``python3 kernel.py``: CPython runs the harness (argparse, f-strings, torch);
each call of a ``@pl.jit`` function (or a ``@pl.program``'s orchestration) is
one launch that ptoc compiles and pto_sim simulates, and the simulated results
land in the caller's torch tensors. See docs/python.md.
"""

import os
import sys

from pypto.errors import InterpreterError

__version__ = "0.1.0"

_DEBIAN_PYTHON = "/usr/bin/python3"


def _require_torch():
    try:
        import torch  # noqa: F401
    except ImportError as e:
        here = os.path.realpath(sys.executable)
        debian = os.path.realpath(_DEBIAN_PYTHON)
        if here != debian:
            hint = (
                f"this interpreter ({sys.executable}) is not Debian's python3, which is the one "
                f"that sees Debian's python3-torch: run the script with {_DEBIAN_PYTHON}"
            )
        else:
            hint = "install Debian's package: apt-get install python3-torch python3-numpy"
        raise InterpreterError(f"pypto needs torch: {e}; {hint}") from None


_require_torch()

from pypto import _excepthook  # noqa: E402

_excepthook.install()
