"""The decorators: what a kernel is to CPython, and what calling one does."""

import functools
import sys


class KernelFunction:
    """A function ptoc compiles (``@pl.jit`` and its variants, ``@pl.function``).

    CPython keeps the function object (its source and globals); calling a
    ``@pl.jit`` function compiles and simulates one launch. The variants that
    only run inside a launch (incore, inline, extern, a program's methods)
    cannot be called from the host.
    """

    def __init__(self, fn, decorator, host_callable):
        self.fn = fn
        self.decorator = decorator  # for messages: "@pl.jit.incore"
        self.host_callable = host_callable
        self.name = fn.__name__
        functools.update_wrapper(self, fn)

    def __call__(self, *args, config=None, **kwargs):
        if not self.host_callable:
            from pypto.errors import CompileError

            raise CompileError(
                f"{self.decorator} function '{self.name}' runs inside a launch: call it from "
                "the body of a @pl.jit function, or decorate it with @pl.jit to launch it"
            )
        from pypto import _launch

        return _launch.launch(self, f"{self.name}", args, kwargs, config)

    # Upstream's JITFunction.lower() / .compile(): the object scripts inspect.
    def lower(self, *args, **kwargs):
        """With arguments, ptoc compiles the call (a located error raises
        PartialCodegenError); the result lists the functions either way."""
        from pypto._compiled import CompiledProgram

        if (args or kwargs) and self.host_callable:
            from pypto import _launch

            _launch.compile_only(self, self.name, args, kwargs)
        return CompiledProgram(self)

    compile = lower

    def __repr__(self):
        return f"<{self.decorator} {self.name}>"


def _decorator(name, host_callable):
    def apply(fn=None, **options):
        if fn is None:  # @pl.jit(auto_scope=False)
            return lambda f: KernelFunction(f, name, host_callable)
        return KernelFunction(fn, name, host_callable)

    return apply


class JitDecorator:
    """``pl.jit`` with ``pl.jit.incore``, ``pl.jit.inline`` and ``pl.jit.extern``."""

    def __init__(self):
        self._jit = _decorator("@pl.jit", True)
        self.incore = _decorator("@pl.jit.incore", False)
        self.inline = _decorator("@pl.jit.inline", False)
        self.extern = _decorator("@pl.jit.extern", False)

    def __call__(self, fn=None, **options):
        return self._jit(fn, **options)

    def __repr__(self):
        return "pl.jit"


def function(fn=None, **options):
    """``@pl.function(type=...)``: a method of a ``@pl.program`` class."""

    def mark(f):
        kernel = KernelFunction(f, "@pl.function", False)
        kernel.function_type = options.get("type")
        return kernel

    return mark(fn) if fn is not None else mark


class _BoundOrchestration:
    def __init__(self, program, method):
        self.program = program
        self.method = method

    def __call__(self, *args, config=None, **kwargs):
        from pypto import _launch

        return _launch.launch(
            self.program, f"{self.program.name}.{self.method}", args, kwargs, config
        )


class ProgramClass:
    """A ``@pl.program`` class: ``Program.main(...)`` launches its orchestration."""

    def __init__(self, cls, defining_locals=None):
        self.cls = cls
        self.fn = cls  # its source and module, as for a KernelFunction
        # A program built inside a function (a factory): the factory's
        # variables, which its methods' annotations read when the class body
        # runs (they are no closure cells of the methods).
        self.defining_locals = defining_locals or {}
        self.name = cls.__name__
        self.decorator = "@pl.program"
        functools.update_wrapper(self, cls, updated=())

    def methods(self):
        return {k: v for k, v in vars(self.cls).items() if isinstance(v, KernelFunction)}

    def orchestration(self):
        for name, method in self.methods().items():
            if "Orchestration" in repr(getattr(method, "function_type", "")):
                return name
        raise AttributeError(
            f"@pl.program {self.name} has no @pl.function(type=pl.FunctionType.Orchestration)"
        )

    @property
    def functions(self):
        from pypto._compiled import CompiledProgram

        return CompiledProgram(self).functions

    def lower(self, *args, **kwargs):
        from pypto._compiled import CompiledProgram

        return CompiledProgram(self)

    compile = lower

    def as_python(self):
        return self.lower().as_python()

    def __getattr__(self, name):
        methods = self.methods()
        if name in methods:
            return _BoundOrchestration(self, name)
        return getattr(self.cls, name)

    def __repr__(self):
        return f"<@pl.program {self.name}>"


def program(cls):
    frame = sys._getframe(1)
    local = {} if frame.f_locals is frame.f_globals else dict(frame.f_locals)
    return ProgramClass(cls, local)
