"""DSL names: ``pl.FP32``, ``pl.Tensor[[M, N], pl.FP32]``, ``pl.Out[pl.Tensor]``.

A DslName remembers the expression that made it, so a module constant bound
to one (``DT = pl.FP32``) reaches ptoc as that expression.
"""

import os
import sys


def _expr(value):
    if isinstance(value, DslName):
        return value.expr
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_expr(v) for v in value)
        if isinstance(value, tuple):
            return "(" + inner + ("," if len(value) == 1 else "") + ")"
        return "[" + inner + "]"
    return repr(value)


def _caller():
    """(file, line) of the innermost frame outside the pypto package."""
    frame = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None or frame.f_code.co_filename.startswith("<"):
        return None
    return os.path.abspath(frame.f_code.co_filename), frame.f_lineno


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class DslName:
    __slots__ = ("expr", "origin")

    def __init__(self, expr, origin=None):
        object.__setattr__(self, "expr", expr)
        # Where the script made it (a call such as pl.MemRef(slots=2)): ptoc's
        # messages about it name that line.
        object.__setattr__(self, "origin", origin)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return DslName(f"{self.expr}.{name}")

    def __getitem__(self, key):
        inner = ", ".join(_expr(k) for k in key) if isinstance(key, tuple) else _expr(key)
        return DslName(f"{self.expr}[{inner}]")

    def __call__(self, *args, **kwargs):
        parts = [_expr(a) for a in args] + [f"{k}={_expr(v)}" for k, v in kwargs.items()]
        return DslName(f"{self.expr}({', '.join(parts)})", _caller())

    def __iter__(self):
        # Without this, CPython would iterate through __getitem__ forever.
        from pypto.errors import DslUsageError

        raise DslUsageError(
            f"{self.expr} is a PyPTO DSL construct: it runs inside a @pl.jit function "
            "(ptoc evaluates it there), not in the script itself"
        )

    def __setattr__(self, name, value):
        raise AttributeError(f"{self.expr} is a DSL name and has no attribute to set")

    def __repr__(self):
        return self.expr

    def __eq__(self, other):
        return isinstance(other, DslName) and other.expr == self.expr

    def __hash__(self):
        return hash(self.expr)

    # Shapes such as pl.Tensor[[M * 2, N], ...] are computed by CPython
    # before the DslName sees them; a DslName itself in arithmetic (a
    # dynamic dim) stays an expression.
    def _binary(self, op, other, reflected=False):
        left, right = (_expr(other), self.expr) if reflected else (self.expr, _expr(other))
        return DslName(f"({left} {op} {right})")

    def __add__(self, o):
        return self._binary("+", o)

    def __radd__(self, o):
        return self._binary("+", o, True)

    def __sub__(self, o):
        return self._binary("-", o)

    def __rsub__(self, o):
        return self._binary("-", o, True)

    def __mul__(self, o):
        return self._binary("*", o)

    def __rmul__(self, o):
        return self._binary("*", o, True)

    def __floordiv__(self, o):
        return self._binary("//", o)

    def __rfloordiv__(self, o):
        return self._binary("//", o, True)


def dsl_name(expr):
    return DslName(expr)


def expression_of(value):
    """The Python-subset expression ptoc reads for `value`, or None."""
    if isinstance(value, DslName):
        return value.expr
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return f"float({str(value)!r})"
        return repr(value)
    if isinstance(value, (list, tuple)):
        items = [expression_of(v) for v in value]
        if any(i is None for i in items):
            return None
        return _expr(type(value)(DslName(i) for i in items))
    if isinstance(value, os.PathLike):  # external_source=Path(...): its text
        return repr(os.fspath(value))
    if isinstance(value, dict):  # ptoc evaluates dict displays (string/number/enum keys)
        pairs = [(expression_of(k), expression_of(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return None
