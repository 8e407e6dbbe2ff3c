"""The exceptions upstream scripts catch around code generation."""

from pypto.errors import CompileError


class PartialCodegenError(CompileError):
    """Raised (as upstream's code generator does) when a kernel does not compile."""


__all__ = ["PartialCodegenError"]
