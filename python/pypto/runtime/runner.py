"""``pypto.runtime.runner``: where upstream scripts import ``RunConfig`` from."""

from pypto.runtime import RunConfig

__all__ = ["RunConfig"]
