"""Multi-chip programs are not modelled: pto_sim simulates one chip."""

from pypto.errors import InterpreterError

raise InterpreterError(
    "pypto.language.distributed: pto_sim simulates one chip; multi-chip programs (ranks, "
    "windows, remote loads) are not modelled"
)
