"""``pypto.runtime``: RunConfig, run and TensorSpec, as upstream scripts use them.

Whatever the platform, a launch runs on pto_sim: ``platform`` picks the chip
config (a2a3* -> configs/ascend.yaml, a5* -> configs/a5.yaml).
"""

import dataclasses
from typing import Any, Optional, Sequence, Union

from pypto.errors import ConfigError

_RingSize = Union[int, Sequence[int], None]


@dataclasses.dataclass
class RunConfig:
    """Upstream's fields; those pto_sim uses are mapped, the others accepted.

    platform -> the chip config; aicpu_thread_num (1 orchestrator + N
    schedulers) -> ``aicpu.scheduler_threads``; ring_* -> the launch's ring
    sizes; enable_chip_swimlane / enable_dep_gen -> the launch's output files
    (under PTO_SIM_OUT, or ./pto_sim_out); rtol / atol are the script's own
    to use.
    """

    platform: str = "a2a3sim"
    device_id: int = 0
    rtol: float = 1e-5
    atol: float = 1e-5
    strategy: Any = None
    backend_type: Any = None
    dump_passes: Any = False
    save_kernels: bool = False
    save_kernels_dir: Optional[str] = None
    codegen_only: bool = False
    enable_chip_swimlane: Union[int, bool] = 0
    enable_dump_args: int = 0
    enable_pmu: int = 0
    enable_dep_gen: bool = False
    enable_scope_stats: bool = False
    compile_profiling: bool = False
    diagnostic_phase: Any = None
    disabled_diagnostics: Any = None
    golden_data_dir: Optional[str] = None
    aicpu_thread_num: Optional[int] = None
    ring_task_window: _RingSize = None
    ring_heap: _RingSize = None
    ring_dep_pool: _RingSize = None
    distributed_config: Any = None
    analyze_auto_scopes_for_deps: bool = False
    memory_planner: Any = None
    dump_ptoas_passes: bool = False

    def __post_init__(self):
        validate(self)


def chip_of(platform):
    """(config file stem, aicpu_thread_num range) of a platform name."""
    if not isinstance(platform, str):
        raise ConfigError(f"RunConfig(platform=...) must be a string, got {platform!r}")
    if platform.startswith("a2a3"):
        return "ascend", (2, 4)
    if platform.startswith("a5"):
        return "a5", (2, 5)
    raise ConfigError(
        f"RunConfig(platform={platform!r}): expected a2a3, a2a3sim, a5 or a5sim "
        "(every platform runs on pto_sim)"
    )


# The runtime's ranges of the ring sizes (as common/ring_limits.h states them
# for pto_sim): (low, high, power of two, unit).
_RING_RANGES = {
    "ring_task_window": (4, 1 << 24, True, ""),
    "ring_heap": (1024, 1 << 40, False, " bytes"),
    "ring_dep_pool": (4, 2147483647, False, " entries"),
}


def validate(config):
    _, (low, high) = chip_of(config.platform)
    n = config.aicpu_thread_num
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or not low <= n <= high):
        raise ConfigError(
            f"RunConfig(aicpu_thread_num={n!r}): expected an integer in [{low}, {high}] on "
            f"{config.platform} (1 orchestrator + the scheduler threads)"
        )
    for key in ("ring_task_window", "ring_heap", "ring_dep_pool"):
        value = getattr(config, key)
        if value is None:
            continue
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if len(items) not in (1, 4) or any(
            isinstance(i, bool) or not isinstance(i, int) or i < 1 for i in items
        ):
            raise ConfigError(
                f"RunConfig({key}={value!r}): expected a positive integer (all four rings) "
                "or a list of 4 positive integers"
            )
        low, high, power_of_two, unit = _RING_RANGES[key]
        for n in items:
            if not low <= n <= high or (power_of_two and n & (n - 1)):
                kind = "a power of two in" if power_of_two else "in"
                raise ConfigError(
                    f"RunConfig({key}=...) value {n} is outside the runtime's range: each entry "
                    f"must be {kind} [{low}, {high}]{unit} (RuntimeEnv::validate of the runtime)"
                )
    for key in ("rtol", "atol"):
        value = getattr(config, key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(f"RunConfig({key}={value!r}): expected a number >= 0")
    swimlane = config.enable_chip_swimlane
    if isinstance(swimlane, bool):
        swimlane = int(swimlane)
    if not isinstance(swimlane, int) or not 0 <= swimlane <= 4:
        raise ConfigError(
            f"RunConfig(enable_chip_swimlane={config.enable_chip_swimlane!r}): expected a level "
            "0-4 or a bool"
        )


@dataclasses.dataclass
class TensorSpec:
    """A tensor by name, shape and dtype (upstream's field order).

    Passed to a launch as it is, without ``init_value`` (or with a random
    factory, ``torch.randn`` / ``torch.rand``), it has no contents: the
    launch runs timing only. With any other ``init_value`` it goes with the
    values ``create_tensor()`` gives (one tensor per spec), so a kernel's
    ``pl.read`` of it can decide control in a timing-only launch.
    ``create_tensor()`` makes the CPU tensor it describes: zeros, a constant,
    a given tensor, or a factory (``torch.randn``, ...) or callable.
    """

    name: str = ""
    shape: Sequence[int] = ()
    dtype: Any = None
    init_value: Any = None
    is_output: bool = False

    def create_tensor(self):
        import torch

        init = self.init_value
        if init is None:
            return torch.zeros(list(self.shape), dtype=self.dtype)
        if isinstance(init, (bool, int, float)):
            return torch.full(list(self.shape), init, dtype=self.dtype)
        if isinstance(init, torch.Tensor):
            return init.to(dtype=self.dtype)
        if init in (torch.randn, torch.rand, torch.zeros, torch.ones):
            return init(list(self.shape), dtype=self.dtype)
        if callable(init):
            return torch.as_tensor(init(), dtype=self.dtype)
        raise TypeError(f"TensorSpec {self.name!r}: unsupported init_value {type(init).__name__}")

    @property
    def device(self):
        import torch

        return torch.device("meta")


def run(program, *tensors, config=None):
    """Launches a @pl.program's orchestration (or a @pl.jit function) with `tensors`."""
    from pypto.language._kernels import KernelFunction, ProgramClass

    if isinstance(program, ProgramClass):
        bound = getattr(program, program.orchestration())
        if not tensors:
            # upstream's `compiled = run(program, config=...)`, then
            # `compiled(*inputs)`: a callable that launches when called.
            return lambda *args, config=config: bound(*args, config=config)
        return bound(*tensors, config=config)
    if isinstance(program, KernelFunction):
        return program(*tensors, config=config)
    raise TypeError(f"pypto.runtime.run: expected a @pl.program or @pl.jit, got {program!r}")


__all__ = ["RunConfig", "TensorSpec", "run"]
