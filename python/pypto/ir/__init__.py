"""Upstream's IR package: only the names scripts pass to RunConfig."""

from pypto.ir.pass_manager import OptimizationStrategy

__all__ = ["OptimizationStrategy"]
