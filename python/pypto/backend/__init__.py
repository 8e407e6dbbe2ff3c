"""Accepted for upstream compatibility: every platform runs on pto_sim."""

import enum


class BackendType(enum.Enum):
    Ascend910B = "Ascend910B"
    Ascend950 = "Ascend950"
    CCE = "CCE"
    PTO = "PTO"


__all__ = ["BackendType"]
