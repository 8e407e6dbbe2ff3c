"""Uncaught pypto errors end the script as a compiler would: message, exit 2.

A DSL error prints ptoc's located message (file, line, column, the caret)
without a Python traceback and exits 2; a failed simulation exits 3 (as
pto_sim does); anything else (the script's own harness) keeps Python's
traceback and exit code.
"""

import os
import sys

from pypto.errors import CompileError, PyptoError, SimulationError

EXIT_BAD_INPUT = 2
EXIT_RUNTIME = 3


# torch's message when a tensor does not fit the machine (a model's weights),
# and the way to time such a program anyway.
_OUT_OF_MEMORY = "DefaultCPUAllocator: can't allocate memory"
_TIMING_ONLY_HINT = (
    "pypto: note: the script's tensors do not fit in this machine's memory. To time the program "
    "without their contents, make them on torch.device(\"meta\"): the kernels then run timing "
    "only (no contents, no checks), as `ptoc --timing-only` records them")


def _hook(previous):
    def hook(kind, value, traceback):
        # (By module: the hook also reports a pypto that failed to import.)
        record = sys.modules.get("pypto._record")
        if record is not None:
            record.mark_failed()  # a recording of a failed run is not written
        if not isinstance(value, PyptoError):
            previous(kind, value, traceback)
            if isinstance(value, RuntimeError) and _OUT_OF_MEMORY in str(value):
                print(_TIMING_ONLY_HINT, file=sys.stderr)
            return
        sys.stdout.flush()
        message = str(value)
        if not isinstance(value, CompileError):  # ptoc's messages carry their place
            where = _user_frame(traceback)
            if where:
                message = f"{where}: error: {message}"
        print(message, file=sys.stderr)
        sys.stderr.flush()
        if record is not None:
            record.finish()  # os._exit skips atexit
        code = EXIT_BAD_INPUT
        if isinstance(value, SimulationError):
            code = value.exit_code if value.exit_code in (1, 2, 3) else EXIT_RUNTIME
        os._exit(code)

    return hook


def _user_frame(traceback):
    """"file:line" of the script's innermost frame (not pypto's own)."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    where = None
    while traceback is not None:
        name = traceback.tb_frame.f_code.co_filename
        path = os.path.abspath(name)
        # Not pypto's frames, nor generated code ("<string>": a dataclass's __init__).
        if not path.startswith(package) and not name.startswith("<"):
            where = f"{path}:{traceback.tb_lineno}"
        traceback = traceback.tb_next
    return where


def install():
    if getattr(sys.excepthook, "_pypto", False):
        return
    hook = _hook(sys.excepthook)
    hook._pypto = True
    sys.excepthook = hook
