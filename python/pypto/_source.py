"""What ptoc needs to compile one call: the kernels' lines of the user's file,
the module values they read, the call, and the argument tensors.

The user's file is handed over with every line blanked except the kernels'
(each at its own line, so ptoc's messages name the user's line and column).
The module values the kernels read are CPython's, computed by the harness
however it liked (argparse, f-strings, imports), and reach ptoc as Python
statements after the file's last line: ``M = 128``, ``DT = pl.FP32``.
"""

import ast
import builtins
import inspect
import os
import textwrap
import types

from pypto.errors import CompileError
from pypto.language._dsl import DslName, expression_of
from pypto.language._kernels import JitDecorator, KernelFunction, ProgramClass

_PRELUDE_IMPORTS = [
    "import pypto.language as pl",
    "import torch",
    "from pypto.runtime import RunConfig",
]


def _torch_dtype_expr(value):
    try:
        import torch
    except ImportError:  # pragma: no cover - pypto/__init__ requires torch
        return None
    if isinstance(value, torch.dtype):
        return str(value)  # "torch.float32"
    return None


def _file_of(obj):
    path = inspect.getsourcefile(obj)
    if path is None:
        raise CompileError(f"pypto: cannot find the source file of {obj!r}")
    return os.path.abspath(path)


def _names_in(source):
    tree = ast.parse(source)
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def _globals_of(obj):
    fn = obj.fn if isinstance(obj, (KernelFunction, ProgramClass)) else obj
    if isinstance(fn, type):
        import sys

        return vars(sys.modules[fn.__module__])
    return fn.__globals__


class KernelSource:
    """The kernels of one file that a call needs, and the values they read."""

    def __init__(self, entry):
        self.file = _file_of(entry.fn)
        with open(self.file, encoding="utf-8") as f:
            self.lines = f.read().splitlines()
        self.kept = set()  # 1-based line numbers
        self.wrappers = {}  # line -> "if True:" opening a nested definition's block
        self.prelude = list(_PRELUDE_IMPORTS)
        self.bound = set()  # module names the prelude binds
        self._visited = set()
        self._collect(entry)

    def _collect(self, obj):
        key = id(obj)
        if key in self._visited:
            return
        self._visited.add(key)
        fn = obj.fn if isinstance(obj, (KernelFunction, ProgramClass)) else obj
        lines, start = inspect.getsourcelines(fn)
        if lines and lines[0][:1].isspace():
            self._open_nested(fn, start)
        self.kept.update(range(start, start + len(lines)))
        module_globals = _globals_of(obj)
        for name, value in _closure_of(obj):
            if name not in self.bound:
                self._bind(name, value, fn.__name__)
        for name in sorted(_names_in(textwrap.dedent("".join(lines)))):
            if name in self.bound or name not in module_globals:
                continue
            self._bind(name, module_globals[name], fn.__name__)

    def _open_nested(self, fn, start):
        # A definition inside a function (a program built by a factory) keeps
        # its lines and columns: the line above it, blank in the copy, opens
        # a module-level block for it, and its closure's values are bound.
        opener = start - 1
        if opener < 1 or opener in self.kept or opener in self.wrappers:
            raise CompileError(
                f"{self.file}:{start}: error: '{fn.__name__}' is defined inside another block "
                "right after other kernel code; pypto needs a line between them (or define it "
                "at module level)"
            )
        self.wrappers[opener] = "if True:"

    def _bind(self, name, value, user):
        if isinstance(value, (KernelFunction, ProgramClass)) or (
            isinstance(value, types.FunctionType)
        ):
            fn = value.fn if isinstance(value, (KernelFunction, ProgramClass)) else value
            try:
                other = _file_of(fn)
            except (TypeError, CompileError):
                return
            if other != self.file:
                raise CompileError(
                    f"{self.file}: error: '{user}' uses '{name}', defined in {other}; pypto "
                    "compiles a kernel together with the kernels and helpers of its own file "
                    "(define them in one module)"
                )
            self.bound.add(name)
            self._collect(value)
            return
        if isinstance(value, types.ModuleType):
            if value.__name__ == "pypto.language":
                self.prelude.append(f"import pypto.language as {name}")
            elif value.__name__ == "torch":
                self.prelude.append(f"import torch as {name}")
            else:
                return
            self.bound.add(name)
            return
        if isinstance(value, JitDecorator):
            self.prelude.append(f"{name} = pl.jit")
            self.bound.add(name)
            return
        if getattr(builtins, name, None) is value:
            return
        expr = _torch_dtype_expr(value)
        if expr is None:
            expr = expression_of(value)
        if expr is None:
            return  # ptoc says "not defined" where a kernel uses it
        self.prelude.append(f"{name} = {expr}")
        self.bound.add(name)

    def text(self, call, call_line):
        """The synthetic file, and the lines where the prelude and the call sit."""
        body = [
            line if (i + 1) in self.kept else self.wrappers.get(i + 1, "")
            for i, line in enumerate(self.lines)
        ]
        prelude_line = len(body) + 2
        body.append("")
        body.extend(self.prelude)
        if call_line is None or call_line in self.kept or call_line > len(self.lines):
            call_line = len(body) + 1
            body.append(call)
        else:
            body[call_line - 1] = call
        return "\n".join(body) + "\n", prelude_line, call_line


def _closure_of(obj):
    """(name, value) of the enclosing function's variables a kernel reads."""
    if isinstance(obj, ProgramClass):
        functions = [m.fn for m in obj.methods().values()]
    else:
        functions = [obj.fn if isinstance(obj, KernelFunction) else obj]
    out = []
    for fn in functions:
        code = getattr(fn, "__code__", None)
        for name, cell in zip(code.co_freevars if code else (), fn.__closure__ or ()):
            try:
                out.append((name, cell.cell_contents))
            except ValueError:  # not assigned yet
                continue
    return out


def caller_line(file):
    """The line of `file` that called into pypto, if the call came from it."""
    frame = inspect.currentframe()
    package = os.path.dirname(os.path.abspath(__file__))
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(package + os.sep):
            return frame.f_lineno if path == file else None
        frame = frame.f_back
    return None


def parameter_names(obj, method=None):
    fn = obj.fn
    if isinstance(obj, ProgramClass):
        fn = obj.methods()[method].fn
    names = list(inspect.signature(fn).parameters)
    return names[1:] if isinstance(obj, ProgramClass) else names


__all__ = ["KernelSource", "caller_line", "parameter_names", "DslName"]
