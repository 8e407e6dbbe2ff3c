"""What ``JITFunction.lower()`` / ``.compile()`` and ``@pl.program`` expose to
scripts that inspect a program: its functions by name, each with ``.name``,
``.func_type`` and ``.as_python()`` (the source text)."""

import ast
import enum
import inspect
import textwrap


class FunctionType(enum.Enum):
    Orchestration = "Orchestration"
    InCore = "InCore"
    Inline = "Inline"
    External = "External"
    Opaque = "Opaque"


_BY_DECORATOR = {
    "@pl.jit": FunctionType.Orchestration,
    "@pl.jit.incore": FunctionType.InCore,
    "@pl.jit.inline": FunctionType.Inline,
    "@pl.jit.extern": FunctionType.External,
}


class Function:
    def __init__(self, name, func_type, source):
        self.name = name
        self.func_type = func_type
        self._source = source

    def as_python(self):
        return self._source

    def __repr__(self):
        return f"<Function {self.name} {self.func_type}>"


def _source_of(fn):
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return ""


def _method_type(kernel):
    text = repr(getattr(kernel, "function_type", ""))
    for t in FunctionType:
        if t.value in text:
            return t
    return FunctionType.InCore if "AIC" in text or "AIV" in text else FunctionType.Opaque


class CompiledProgram:
    """The entry and the kernels it calls (by name, through its module)."""

    def __init__(self, entry):
        from pypto.language._kernels import KernelFunction, ProgramClass

        self.name = entry.name
        self.functions = {}
        if isinstance(entry, ProgramClass):
            for name, method in entry.methods().items():
                self.functions[name] = Function(name, _method_type(method), _source_of(method.fn))
            self._source = _source_of(entry.cls)
            return
        pending = [entry]
        while pending:
            kernel = pending.pop(0)
            if kernel.name in self.functions:
                continue
            source = _source_of(kernel.fn)
            self.functions[kernel.name] = Function(
                kernel.name, _BY_DECORATOR.get(kernel.decorator, FunctionType.Opaque), source
            )
            names = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
            for name in sorted(names):
                value = kernel.fn.__globals__.get(name)
                if isinstance(value, KernelFunction):
                    pending.append(value)
        self._source = "\n\n".join(f.as_python() for f in self.functions.values())

    def as_python(self):
        return self._source
