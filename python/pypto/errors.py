"""The errors a pypto script can catch: one base class for all of them."""


class PyptoError(Exception):
    """Every error the pypto package raises."""


class CompileError(PyptoError):
    """ptoc rejected a kernel: the DSL's own error, located in the user's file.

    ``message`` is ptoc's text: ``file:line:col: error: ...``, the source line
    and a caret under the column.
    """

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class SimulationError(PyptoError):
    """pto_sim could not finish the launch (bad input, a runtime fatal, a limit)."""

    def __init__(self, message, exit_code=None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class DeadlockError(SimulationError):
    """The simulated device stopped with work left: the report says what waited on what."""


class CheckError(SimulationError):
    """A check pto_sim ran on the simulated results failed."""


class ConfigError(PyptoError, ValueError):
    """A RunConfig field or a PTO_SIM_* environment variable has a bad value."""


class InterpreterError(PyptoError, ImportError):
    """The interpreter cannot run pypto (torch missing, not Debian's python3)."""


class DslUsageError(PyptoError, TypeError):
    """A DSL construct used by the script itself, outside a kernel (``for i in pl.range(4)``
    at the top level): ptoc evaluates those inside @pl.jit functions only."""
