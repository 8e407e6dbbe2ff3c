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
    """The kernels and helpers a call needs, from every file they live in, and
    the module values they read."""

    def __init__(self, entry):
        self.file = _file_of(entry.fn)  # the entry's: the text's first block
        self.blocks = {}  # file -> its lines, the kept ones, nested openers
        self.prelude = list(_PRELUDE_IMPORTS)
        self.origins = {}  # prelude index -> (file, line) of the value's making
        self.dsl_names = {}  # id of a DSL object -> the first name bound to it
        self.bound = {}  # name -> what the prelude or a definition binds it to
        # `_qk = qk_matmul`: kernels held under other names, bound after the
        # definitions (ptoc runs the prelude first, then the definitions).
        self.aliases = []
        self._visited = set()
        self._collect(entry)

    def _block(self, path):
        if path not in self.blocks:
            with open(path, encoding="utf-8") as f:
                self.blocks[path] = {"lines": f.read().splitlines(), "kept": set(), "open": {}}
        return self.blocks[path]

    def _collect(self, obj):
        key = id(obj)
        if key in self._visited:
            return
        self._visited.add(key)
        fn = obj.fn if isinstance(obj, (KernelFunction, ProgramClass)) else obj
        path = _file_of(fn)
        block = self._block(path)
        lines, start = inspect.getsourcelines(fn)
        if lines and lines[0][:1].isspace():
            self._open_nested(block, path, fn, start)
        block["kept"].update(range(start, start + len(lines)))
        module_globals = _globals_of(obj)
        for name, value in _closure_of(obj):
            self._bind(name, value, fn.__name__, path)
        for name in sorted(_names_in(textwrap.dedent("".join(lines)))):
            if name in module_globals:
                self._bind(name, module_globals[name], fn.__name__, path)

    def _open_nested(self, block, path, fn, start):
        # A definition inside a function (a program built by a factory) keeps
        # its lines and columns: the line above it, blank in the copy, opens
        # a module-level block for it, and its closure's values are bound.
        opener = start - 1
        if opener < 1 or opener in block["kept"] or opener in block["open"]:
            raise CompileError(
                f"{path}:{start}: error: '{fn.__name__}' is defined inside another block "
                "right after other kernel code; pypto needs a line between them (or define it "
                "at module level)"
            )
        block["open"][opener] = "if True:"

    def _claim(self, name, meaning, user, path):
        """Binds `name` once per call; the same name meaning two things is an error."""
        if name in self.bound:
            if self.bound[name] != meaning:
                raise CompileError(
                    f"{path}: error: '{user}' reads '{name}', which the other kernels of this "
                    "call read as something else; pypto binds a module-level name once per "
                    "launch (rename one of them)"
                )
            return False
        self.bound[name] = meaning
        return True

    def _bind(self, name, value, user, path):
        if isinstance(value, (KernelFunction, ProgramClass, types.FunctionType)):
            fn = value.fn if isinstance(value, (KernelFunction, ProgramClass)) else value
            try:
                _file_of(fn)
            except (TypeError, CompileError):
                return
            if self._claim(name, ("definition", id(value)), user, path):
                self._collect(value)
                if name != fn.__name__:
                    # A kernel held under another name (`_qk = make_qk(...)`):
                    # its definition binds its own name; the prelude, after
                    # every definition, binds this one to it.
                    self._claim(fn.__name__, ("definition", id(value)), user, path)
                    self.aliases.append(f"{name} = {fn.__name__}")
            return
        if isinstance(value, types.ModuleType):
            if value.__name__ == "pypto.language":
                statement = f"import pypto.language as {name}"
            elif value.__name__ == "torch":
                statement = f"import torch as {name}"
            else:
                return
            if self._claim(name, ("module", value.__name__), user, path):
                self.prelude.append(statement)
            return
        if isinstance(value, JitDecorator):
            if self._claim(name, ("module", "pl.jit"), user, path):
                self.prelude.append(f"{name} = pl.jit")
            return
        if hasattr(builtins, name) and getattr(builtins, name) is value:
            return  # the builtin itself (a None value is still bound)
        if isinstance(value, DslName):
            # Two names of one object (c = b) stay one object for ptoc, which
            # has rules about that (a pl.MemRef bound to two names).
            first = self.dsl_names.setdefault(id(value), name)
            if first != name:
                if self._claim(name, ("alias", first), user, path):
                    self.prelude.append(f"{name} = {first}")
                return
        expr = _torch_dtype_expr(value)
        if expr is None:
            expr = expression_of(value)
        if expr is None:
            return  # ptoc says "not defined" where a kernel uses it
        if self._claim(name, ("value", expr), user, path):
            origin = getattr(value, "origin", None)
            if origin is not None:
                self.origins[len(self.prelude)] = origin
            self.prelude.append(f"{name} = {expr}")

    def text(self, call, call_line):
        """The synthetic text: each file's block (the entry's first, so its
        lines keep their numbers), then the prelude, with the call on the
        caller's line or after the prelude. Returns the text, the prelude's
        and the call's lines, and the other files' segments."""
        body = []
        segments = []
        for path, block in self.blocks.items():
            first = len(body) + 1
            body.extend(
                line if (i + 1) in block["kept"] else block["open"].get(i + 1, "")
                for i, line in enumerate(block["lines"])
            )
            if path != self.file and len(body) >= first:
                segments.append({"first_line": first, "lines": len(body) - first + 1,
                                 "file": path, "file_first_line": 1})
        entry = self.blocks[self.file]
        # Before the prelude line, so ptoc runs them with (after) the definitions.
        body.extend(self.aliases)
        prelude_line = len(body) + 2
        body.append("")
        body.extend(self.prelude)
        # A DSL value the script made (pl.MemRef(...)) reads as its own line.
        for index, (path, line) in sorted(self.origins.items()):
            segments.append({"first_line": prelude_line + index, "lines": 1, "file": path,
                             "file_first_line": line})
        if call_line is None or call_line in entry["kept"] or call_line > len(entry["lines"]):
            call_line = len(body) + 1
            body.append(call)
        else:
            body[call_line - 1] = call
        return "\n".join(body) + "\n", prelude_line, call_line, segments


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
    if isinstance(obj, (ProgramClass, KernelFunction)) and obj.defining_locals:
        # The factory's variables the definition reads outside any closure
        # (annotations, evaluated when the class body or the def ran).
        taken = {name for name, _ in out}
        try:
            source = obj.cls if isinstance(obj, ProgramClass) else obj.fn
            used = _names_in(textwrap.dedent(inspect.getsource(source)))
        except (OSError, TypeError):
            used = set()
        for name in sorted(used - taken):
            if name in obj.defining_locals and name != obj.name:
                out.append((name, obj.defining_locals[name]))
    return out


def caller_frame():
    """The innermost frame outside the pypto package: the script's call."""
    frame = inspect.currentframe()
    package = os.path.dirname(os.path.abspath(__file__))
    while frame is not None:
        if not os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
            return frame
        frame = frame.f_back
    return None


def caller_line(file):
    """The line of `file` that called into pypto, if the call came from it."""
    frame = caller_frame()
    if frame is None or os.path.abspath(frame.f_code.co_filename) != file:
        return None
    return frame.f_lineno


def caller_names():
    """id(value) -> the caller's variable name bound to it (the first, in the
    frame's order): an argument passed as `A` is named `A` in the stream."""
    frame = caller_frame()
    names = {}
    if frame is not None:
        for name, value in frame.f_locals.items():
            if name.isidentifier() and not name.startswith("_"):
                names.setdefault(id(value), name)
    return names


def parameter_names(obj, method=None):
    fn = obj.fn
    if isinstance(obj, ProgramClass):
        fn = obj.methods()[method].fn
    names = list(inspect.signature(fn).parameters)
    return names[1:] if isinstance(obj, ProgramClass) else names


__all__ = ["KernelSource", "caller_line", "parameter_names"]
