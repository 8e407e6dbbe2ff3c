"""pto_sim's pypto: PyPTO scripts run unchanged under CPython, kernels on pto_sim.

``python3 kernel.py``: CPython runs the harness (argparse, f-strings, torch);
each call of a ``@pl.jit`` function (or a ``@pl.program``'s orchestration) is
one launch that ptoc compiles and pto_sim simulates, and the simulated results
land in the caller's torch tensors. See docs/python.md.
"""

import sys

from pypto.errors import InterpreterError

__version__ = "0.1.0"

_DEBIAN_PYTHON = "/usr/bin/python3"
_DEBIAN_PACKAGES = "/usr/lib/python3/dist-packages"  # where python3-torch puts torch


def _require_torch():
    try:
        import torch  # noqa: F401
    except ImportError as e:
        if _DEBIAN_PACKAGES not in sys.path:
            hint = (
                f"this interpreter ({sys.executable}) does not see Debian's dist-packages "
                f"({_DEBIAN_PACKAGES}), where python3-torch installs torch: run the script with "
                f"{_DEBIAN_PYTHON}"
            )
        else:
            hint = "install Debian's package: apt-get install python3-torch python3-numpy"
        raise InterpreterError(f"pypto needs torch: {e}; {hint}") from None


# The hook first: without torch, the script ends with the message, not a traceback.
from pypto import _excepthook  # noqa: E402

_excepthook.install()
_require_torch()

from pypto import _record  # noqa: E402

_record.start_if_asked()
