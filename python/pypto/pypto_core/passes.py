"""``pypto.pypto_core.passes``: upstream's on-chip memory planner choice.

The planner decides how a code generator lays out tile buffers; ptoc plans
buffers its own way (frontend/buffer_planner.h), so every choice compiles
the same task stream. The enum exists so scripts that name a planner run.
"""

import enum


class MemoryPlanner(enum.Enum):
    PYPTO = "pypto"
    DSA_RP = "dsa_rp"
    PTOAS = "ptoas"


__all__ = ["MemoryPlanner"]
