"""``import pypto.language as pl``: the DSL as CPython sees it.

CPython only defines the kernels: their bodies never run here. A call of a
``@pl.jit`` function (or of a ``@pl.program``'s orchestration) hands the
kernel's source and the values it reads to ptoc, which compiles it with the
DSL's own semantics and checks, and pto_sim runs it (pypto/_launch.py).

Every other ``pl.X`` is a DSL name: it may appear in annotations, defaults and
module constants (``DT = pl.FP32``), and ptoc gives it its meaning.
"""

from pypto.language._dsl import DslName, dsl_name
from pypto.language._kernels import JitDecorator, KernelFunction, ProgramClass, function, program

jit = JitDecorator()

__all__ = ["jit", "program", "function", "DslName", "KernelFunction", "ProgramClass"]


def __getattr__(name):
    # PEP 562: pl.Tensor, pl.FP32, pl.Level.CORE_GROUP, pl.load, ... are
    # names ptoc resolves; private names are not DSL.
    if name.startswith("__"):
        raise AttributeError(name)
    return dsl_name("pl." + name)
