"""One kernel call: ptoc compiles it, pto_sim runs it, the results come back.

Each call is one launch: `ptoc --call` compiles the request (pypto/_source.py)
into a task stream, `pto_sim --write-tensors` simulates it with the caller's
tensors, and the simulated contents of every argument are copied back into
the caller's torch tensors, so the script's own checks check the simulator.
The launch's one-line summary goes to stderr.

Environment: PTO_SIM_CONFIG (a chip config instead of the platform's),
PTO_SIM_SET ("key=value" pairs, space-separated, as --set), PTO_SIM_OUT (each
launch's --out files under DIR/launch_<n>_<name>), PTO_SIM_QUIET=1 (no
summary), PTO_SIM_KEEP=1 (keep each launch's request and stream, path on
stderr).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from pypto import _paths
from pypto.backend.pto_backend import PartialCodegenError
from pypto.errors import ConfigError, DeadlockError, SimulationError
from pypto.language._kernels import ProgramClass
from pypto.runtime import RunConfig, chip_of, validate
from pypto._source import KernelSource, caller_line, parameter_names
from pypto._tensors import argument_tensor, scalar_literal

_state = {"launches": 0, "noted": set()}


def _note_once(key, text):
    if key in _state["noted"]:
        return
    _state["noted"].add(key)
    print(f"pypto: {text}", file=sys.stderr)


def _tool(name):
    override = os.environ.get(name.upper().replace("-", "_") + "_BIN")
    path = override or getattr(_paths, name.upper().replace("-", "_"))
    if not os.path.exists(path):
        raise SimulationError(
            f"pypto: {name} not found at {path} (build pto_sim first: scripts/setup.sh)"
        )
    return path


def _config_path(config):
    explicit = os.environ.get("PTO_SIM_CONFIG")
    if explicit:
        if not os.path.isfile(explicit):
            raise ConfigError(f"PTO_SIM_CONFIG={explicit}: no such config file")
        return explicit
    stem, _ = chip_of(config.platform)
    return os.path.join(_paths.CONFIG_DIR, f"{stem}.yaml")


def _sets(config):
    sets = []
    if config.aicpu_thread_num is not None:
        sets.append(f"aicpu.scheduler_threads={config.aicpu_thread_num - 1}")
    extra = os.environ.get("PTO_SIM_SET", "").split()
    for item in extra:
        if "=" not in item:
            raise ConfigError(f"PTO_SIM_SET: '{item}' is not key=value")
    return sets + extra


def _ring_keywords(config):
    out = [f"platform={config.platform!r}"]
    for key in ("ring_task_window", "ring_heap", "ring_dep_pool"):
        value = getattr(config, key)
        if value is not None:
            out.append(f"{key}={list(value) if isinstance(value, (list, tuple)) else value!r}")
    return ", ".join(out)


def _call_text(obj, method, label, args, kwargs, config):
    """The call statement, and the tensors it names."""
    params = parameter_names(obj, method)
    source = KernelSource(obj)
    tensors = []
    parts = []
    used = set(source.bound) | {"pl", "torch", "RunConfig"}
    for i, value in enumerate(args):
        base = params[i] if i < len(params) else f"arg{i}"
        literal = scalar_literal(value)
        if literal is not None:
            parts.append(literal)
            continue
        name = base if base not in used else f"__pypto_arg{i}"
        used.add(name)
        tensors.append(argument_tensor(name, value, f"argument {i} ('{base}') of {label}"))
        parts.append(name)
    for key, value in kwargs.items():
        literal = scalar_literal(value)
        if literal is not None:
            parts.append(f"{key}={literal}")
            continue
        name = key if key not in used else f"__pypto_kw_{key}"
        used.add(name)
        tensors.append(argument_tensor(name, value, f"argument '{key}' of {label}"))
        parts.append(f"{key}={name}")
    parts.append(f"config=RunConfig({_ring_keywords(config)})")
    entry = f"{obj.name}.{method}" if isinstance(obj, ProgramClass) else obj.name
    call = f"{entry}({', '.join(parts)})"
    text, prelude_line, call_line, segments = source.text(call, caller_line(source.file))
    return source, text, prelude_line, call_line, segments, tensors


def launch(obj, label, args, kwargs, config):
    if config is None:
        config = RunConfig()
    elif not isinstance(config, RunConfig):
        raise ConfigError(f"{label}(config=...): expected a pypto.runtime.RunConfig")
    validate(config)
    method = label.split(".", 1)[1] if isinstance(obj, ProgramClass) else None
    _note_once("pto_sim", f"launches run on pto_sim ({config.platform} -> {_config_path(config)})")
    if config.strategy is not None or config.backend_type is not None:
        _note_once("strategy", "RunConfig strategy and backend_type are accepted and ignored")
    work = tempfile.mkdtemp(prefix="pypto_launch_")
    keep = os.environ.get("PTO_SIM_KEEP") == "1"
    try:
        return _run(obj, method, label, args, kwargs, config, work)
    finally:
        if keep:
            print(f"pypto: launch files kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def _run(obj, method, label, args, kwargs, config, work):
    source, text, prelude_line, call_line, segments, tensors = _call_text(
        obj, method, label, args, kwargs, config
    )
    timing_only = any(t.shape_only for t in tensors)
    data_path = os.path.join(work, "args.bin")
    entries = []
    offset = 0
    with open(data_path, "wb") as data:
        for t in tensors:
            entry = {"name": t.name, "dtype": t.dtype, "shape": list(t.shape)}
            if t.shape_only:
                entry.update(offset=0, nbytes=None)
            else:
                payload = t.payload()
                data.write(payload)
                entry.update(offset=offset, nbytes=len(payload))
                offset += len(payload)
            entries.append(entry)
    request = {
        "source_name": source.file,
        "source_text": text,
        "prelude_line": prelude_line,
        "call_line": call_line,
        "segments": segments,
        "data_file": "args.bin",
        "tensors": entries,
    }
    request_path = os.path.join(work, "request.json")
    with open(request_path, "w", encoding="utf-8") as f:
        json.dump(request, f)
    stream = os.path.join(work, "launch.pb")
    ptoc = [_tool("ptoc"), "--call", request_path, "-o", stream]
    if timing_only:
        ptoc.append("--timing-only")
    compiled = subprocess.run(ptoc, capture_output=True, text=True)
    if compiled.returncode != 0:
        raise PartialCodegenError(compiled.stderr.rstrip())
    if compiled.stderr:
        sys.stderr.write(compiled.stderr)

    _state["launches"] += 1
    results = os.path.join(work, "results")
    sim = [_tool("pto_sim"), "--config", _config_path(config), "--trace", stream,
           "--write-tensors", results]
    out_root = os.environ.get("PTO_SIM_OUT")
    wants_files = config.enable_chip_swimlane or config.enable_dep_gen
    if out_root or wants_files:
        out_dir = os.path.join(out_root or "pto_sim_out",
                               f"launch_{_state['launches'] - 1}_{label}")
        sim += ["--out", out_dir]
        swimlane = int(config.enable_chip_swimlane)
        if swimlane:
            sim += ["--swimlane-level", str(swimlane)]
    for item in _sets(config):
        sim += ["--set", item]
    ran = subprocess.run(sim, capture_output=True, text=True)
    if ran.returncode == 130:
        raise KeyboardInterrupt
    if ran.returncode != 0:
        report = (ran.stdout + ran.stderr).rstrip()
        kind = DeadlockError if "deadlock" in report else SimulationError
        raise kind(f"pto_sim failed on {label} (exit {ran.returncode}):\n{report}",
                   ran.returncode)
    if os.environ.get("PTO_SIM_QUIET") != "1":
        _print_summary(_state["launches"] - 1, ran.stdout)
    if not timing_only:
        _write_back(tensors, results)
    return None


def _print_summary(number, stdout):
    # pto_sim numbers the launches of its stream; the script's count is ours.
    # Hazards (unordered overlapping GM accesses) are shown when there are any.
    for line in stdout.splitlines():
        if line.startswith("launch 0 "):
            print(f"pto_sim: launch {number} {line[len('launch 0 '):]}", file=sys.stderr)
        elif "hazard" in line and line.strip() != "hazards: 0":
            print(f"pto_sim: {line.strip()}", file=sys.stderr)


def _write_back(tensors, results):
    with open(os.path.join(results, "tensors.json"), encoding="utf-8") as f:
        index = json.load(f)
    by_name = {}
    for entry in index["tensors"]:
        by_name.setdefault(entry["name"], entry)
    for t in tensors:
        entry = by_name.get(t.name)
        if entry is None or entry["file"] is None:
            continue
        with open(os.path.join(results, entry["file"]), "rb") as f:
            t.store(f.read())


__all__ = ["launch"]
