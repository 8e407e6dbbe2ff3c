"""The decorators: what a kernel is to CPython, and what calling one does."""

import functools
import re
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
        self.defining_locals = {}  # a factory's variables (_factory_locals)
        # Upstream's JITFunction compile cache, which scripts clear; every
        # call here compiles afresh, so it stays empty.
        self._cache = {}
        functools.update_wrapper(self, fn)

    def __call__(self, *args, config=None, **kwargs):
        if not self.host_callable:
            from pypto.errors import CompileError

            if self.decorator == "@pl.jit.opaque" or (
                self.decorator == "@pl.function" and "Opaque" in repr(getattr(self, "function_type", ""))
            ):
                raise CompileError(
                    f"Opaque function '{self.name}' takes its plane from its caller, and the "
                    "host gives it none: call it from a @pl.jit / Orchestration body, make it "
                    "a @pl.program's entry, or decorate it @pl.jit to launch it"
                )
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


def _factory_locals(depth):
    """The variables of the function a kernel is defined in (a factory), which
    its annotations read when the def runs (they are no closure cells)."""
    frame = sys._getframe(depth + 1)
    return {} if frame.f_locals is frame.f_globals else dict(frame.f_locals)


def _made(fn, name, host_callable, depth):
    kernel = KernelFunction(fn, name, host_callable)
    kernel.defining_locals = _factory_locals(depth + 1)
    return kernel


def _decorator(name, host_callable):
    def apply(fn=None, **options):
        if fn is None:  # @pl.jit(auto_scope=False)
            return lambda f: _made(f, name, host_callable, 1)
        return _made(fn, name, host_callable, 1)

    return apply


class JitDecorator:
    """``pl.jit`` with ``pl.jit.incore``, ``.inline``, ``.opaque`` and ``.extern``."""

    def __init__(self):
        self._jit = _decorator("@pl.jit", True)
        self.incore = _decorator("@pl.jit.incore", False)
        self.inline = _decorator("@pl.jit.inline", False)
        # An Opaque function takes its plane from its caller; the host gives none.
        self.opaque = _decorator("@pl.jit.opaque", False)
        self.extern = _decorator("@pl.jit.extern", False)

    def __call__(self, fn=None, **options):
        return self._jit(fn, **options)

    def __repr__(self):
        return "pl.jit"


def function(fn=None, **options):
    """``@pl.function(type=...)``: a method of a ``@pl.program`` class (or a
    standalone function); without ``type=`` it is Opaque, as upstream's."""

    def mark(f):
        kernel = _made(f, "@pl.function", False, 1)
        kernel.function_type = options.get("type", "Opaque")
        return kernel

    if fn is None:
        return mark
    kernel = _made(fn, "@pl.function", False, 1)  # bare @pl.function
    kernel.function_type = "Opaque"
    return kernel


_OUT_TENSOR = re.compile(r"^pl\.Out\[pl\.Tensor\[\[([0-9, ]+)\], pl\.([A-Z0-9]+)\]\]$")


def _output_spec(annotation):
    """(shape, pl dtype name) of a `pl.Out[pl.Tensor[[...], pl.X]]` annotation
    with literal dims, else None."""
    from pypto.language._dsl import DslName

    if not isinstance(annotation, DslName):
        return None
    m = _OUT_TENSOR.match(annotation.expr)
    if not m:
        return None
    return [int(d) for d in m.group(1).split(",") if d.strip()], m.group(2)


class _BoundOrchestration:
    def __init__(self, program, method):
        self.program = program
        self.method = method

    def __call__(self, *args, config=None, **kwargs):
        from pypto import _launch

        args, outputs = self._allocate_outputs(args, kwargs)
        result = _launch.launch(
            self.program, f"{self.program.name}.{self.method}", args, kwargs, config
        )
        if outputs:  # upstream's CompiledProgram returns the outputs it made
            return outputs[0] if len(outputs) == 1 else tuple(outputs)
        return result

    def _allocate_outputs(self, args, kwargs):
        """Called with the inputs only (upstream's CompiledProgram), the
        pl.Out parameters get fresh zero tensors of their annotated shape."""
        import inspect

        import torch

        from pypto._tensors import torch_dtype_of

        fn = self.program.methods()[self.method].fn
        params = [p for p in inspect.signature(fn).parameters.values()][1:]
        if kwargs or len(args) >= len(params):
            return args, []
        specs = [_output_spec(fn.__annotations__.get(p.name)) for p in params]
        if len(args) != sum(spec is None for spec in specs):
            return args, []
        inputs, full, outputs = iter(args), [], []
        for spec in specs:
            if spec is None:
                full.append(next(inputs))
            else:
                outputs.append(torch.zeros(spec[0], dtype=torch_dtype_of(spec[1])))
                full.append(outputs[-1])
        return tuple(full), outputs


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
        """The entry: the Orchestration function, else the one Opaque function
        no other method calls (an Opaque entry is the orchestration)."""
        methods = self.methods()
        kinds = {name: repr(getattr(m, "function_type", "")) for name, m in methods.items()}
        for name, kind in kinds.items():
            if "Orchestration" in kind:
                return name
        opaque = [name for name, kind in kinds.items() if "Opaque" in kind]
        called = set()
        for name, method in methods.items():
            text = _source_text(method.fn)
            called |= {o for o in opaque if o != name and f"self.{o}" in text}
        entries = [o for o in opaque if o not in called]
        if len(entries) == 1:
            return entries[0]
        raise AttributeError(
            f"@pl.program {self.name} has no entry: give it one "
            "@pl.function(type=pl.FunctionType.Orchestration) or one Opaque function that no "
            f"other method calls (Opaque entries found: {entries or 'none'})"
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


def _source_text(fn):
    import inspect

    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""


def program(cls):
    frame = sys._getframe(1)
    local = {} if frame.f_locals is frame.f_globals else dict(frame.f_locals)
    return ProgramClass(cls, local)
