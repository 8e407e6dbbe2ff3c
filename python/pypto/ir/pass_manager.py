"""Accepted and ignored: ptoc has one lowering (a note says so once)."""

import enum


class OptimizationStrategy(enum.Enum):
    Default = "Default"
    DebugTileOptimization = "DebugTileOptimization"
    TileCCEOptimization = "TileCCEOptimization"


__all__ = ["OptimizationStrategy"]
