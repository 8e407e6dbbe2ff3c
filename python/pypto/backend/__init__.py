"""Accepted for upstream compatibility: every platform runs on pto_sim."""

import enum


class BackendType(enum.Enum):
    Ascend910B = "Ascend910B"
    Ascend950 = "Ascend950"
    CCE = "CCE"
    PTO = "PTO"


_backend = {"type": None}


def set_backend_type(backend_type):
    """Upstream picks the code generator's target; pto_sim's chip comes from
    RunConfig.platform, so this only remembers the choice."""
    _backend["type"] = backend_type


def get_backend_type():
    return _backend["type"]


def reset_for_testing():
    """Upstream clears its backend state between tests; here, the remembered type."""
    _backend["type"] = None


__all__ = ["BackendType", "get_backend_type", "reset_for_testing", "set_backend_type"]
