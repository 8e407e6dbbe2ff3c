"""One kernel call: ptoc compiles it, pto_sim runs it, the results come back.

Each call is one launch: `ptoc --call` compiles the request (pypto/_source.py)
into the next segment of the script's task stream, the script's chip (one
`pto_sim --serve` child, pypto/_chip.py) runs it with the caller's tensors,
and the simulated contents of every argument are copied back into the
caller's torch tensors, so the script's own checks check the simulator.
The launch's one-line summary goes to stderr.

Environment: PTO_SIM_CONFIG (a chip config instead of the platform's),
PTO_SIM_SET ("key=value" pairs, space-separated, as --set), PTO_SIM_OUT (the
chip's --out files: DIR/launch_<n> per launch, written as each ends, and the
run's stats.json when the script ends), PTO_SIM_QUIET=1 (no summary),
PTO_SIM_KEEP=1 (keep each launch's request and the chip's whole stream,
paths on stderr).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from pypto import _paths
from pypto._chip import chip_for, claim_out_root
from pypto._record import RECORDER, recording
from pypto.backend.pto_backend import PartialCodegenError
from pypto.errors import ConfigError, DeadlockError, SimulationError
from pypto.language._kernels import ProgramClass
from pypto.runtime import RunConfig, chip_of, validate
from pypto._source import KernelSource, caller_line, caller_names, parameter_names
from pypto._tensors import argument_tensor, scalar_literal

_state = {"launches": 0, "noted": set(), "claimed": set()}


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
    # A tensor goes by the script's own name for it where it has one (the
    # stream's tensor names, and ptoc's messages about them).
    script_names = caller_names()
    for i, value in enumerate(args):
        base = params[i] if i < len(params) else f"arg{i}"
        literal = scalar_literal(value)
        if literal is not None:
            parts.append(literal)
            continue
        name = script_names.get(id(value), base)
        if name in used:
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
    if os.environ.get("PTO_SIM_QUIET") != "1":
        _note_once("pto_sim",
                   f"launches run on pto_sim ({config.platform} -> {_config_path(config)})")
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


def _write_request(work, source, text, prelude_line, call_line, segments, tensors, send_values,
                   extra=None, known=False):
    """ptoc --call's request.json in `work` (and args.bin, the bytes of the
    tensors `send_values` picks); returns its path."""
    entries = []
    offset = 0
    with open(os.path.join(work, "args.bin"), "wb") as data:
        for t in tensors:
            entry = {"name": t.name, "dtype": t.dtype, "shape": list(t.shape),
                     "known": t.known if known else None}
            if send_values(t):
                payload = t.payload()
                data.write(payload)
                entry.update(offset=offset, nbytes=len(payload))
                offset += len(payload)
            else:
                entry.update(offset=0, nbytes=None)
            entries.append(entry)
    request = {
        "source_name": source.file,
        "source_text": text,
        "prelude_line": prelude_line,
        "call_line": call_line,
        "segments": segments,
        "data_file": "args.bin",
        "tensors": entries,
        **(extra or {}),
    }
    request_path = os.path.join(work, "request.json")
    with open(request_path, "w", encoding="utf-8") as f:
        json.dump(request, f)
    return request_path


def compile_only(obj, label, args, kwargs):
    """``kernel.lower(*args)``: ptoc compiles the call (no simulation); its
    located error is raised as PartialCodegenError. Tensors go as shapes, and
    CPU tensors with their values too (a kernel's pl.read needs them)."""
    config = RunConfig()
    method = label.split(".", 1)[1] if isinstance(obj, ProgramClass) else None
    work = tempfile.mkdtemp(prefix="pypto_lower_")
    try:
        source, text, prelude_line, call_line, segments, tensors = _call_text(
            obj, method, label, args, kwargs, config
        )
        request_path = _write_request(work, source, text, prelude_line, call_line, segments,
                                      tensors, send_values=lambda t: not t.shape_only)
        stream = os.path.join(work, "lowered.pb")
        compiled = subprocess.run(
            [_tool("ptoc"), "--call", request_path, "-o", stream, "--timing-only"],
            capture_output=True, text=True)
        if compiled.returncode != 0:
            raise PartialCodegenError(compiled.stderr.rstrip())
        if compiled.stderr:
            sys.stderr.write(compiled.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _chip_key_and_command(config, timing_only):
    """What the chip is built from (a call that changes it starts a new
    chip) and the pto_sim command that builds it."""
    command = [_tool("pto_sim"), "--config", _config_path(config)]
    sets = _sets(config)
    for item in sets:
        command += ["--set", item]
    if timing_only:
        command.append("--timing-only")
    out_root = os.environ.get("PTO_SIM_OUT")
    files = None
    if out_root or config.enable_chip_swimlane or config.enable_dep_gen:
        files = (out_root or "pto_sim_out", int(config.enable_chip_swimlane))
        command += ["--out", files[0]]
        if files[1]:
            command += ["--swimlane-level", str(files[1])]
    key = (_config_path(config), tuple(sets), timing_only, files)
    return key, command


def _run(obj, method, label, args, kwargs, config, work):
    source, text, prelude_line, call_line, segments, tensors = _call_text(
        obj, method, label, args, kwargs, config
    )
    # PTO_SIM_TIMING_ONLY=1 (ptoc --timing-only): every argument as
    # shapes only, as meta tensors would be.
    forced = os.environ.get("PTO_SIM_TIMING_ONLY") == "1"
    timing_only = forced or any(t.shape_only for t in tensors)
    key, command = _chip_key_and_command(config, timing_only)
    if key[3] is not None and key[3][0] not in _state["claimed"]:
        # The script's output directory, once: its chips share it.
        claim_out_root(key[3][0], "PTO_SIM_OUT" if os.environ.get("PTO_SIM_OUT") else "output")
        _state["claimed"].add(key[3][0])
    chip = chip_for(key, command, os.environ.get("PTO_SIM_KEEP") == "1")
    session, digests = chip.request_fields(tensors)
    request_path = _write_request(
        work, source, text, prelude_line, call_line, segments, tensors,
        send_values=lambda t: not (t.shape_only or forced),
        extra={"session": session, **({"recorder": RECORDER} if recording() is not None else {})},
        known=True)
    stream = os.path.join(work, "segment.pb")
    ptoc = [_tool("ptoc"), "--call", request_path, "-o", stream]
    if timing_only:
        ptoc.append("--timing-only")
    compiled = subprocess.run(ptoc, capture_output=True, text=True)
    if compiled.returncode != 0:
        raise PartialCodegenError(compiled.stderr.rstrip())
    if compiled.stderr:
        sys.stderr.write(compiled.stderr)

    _state["launches"] += 1
    report, served = chip.run(stream, os.path.join(work, session["state_out"]), tensors, digests,
                              label)
    if key[3] is not None:
        # pto_sim wrote the launch's files under its own count; the script's
        # count and the call's name are what the user looks for.
        chip.take_launch_files(
            os.path.join(key[3][0], f"launch_{_state['launches'] - 1}_{label}"))
    if os.environ.get("PTO_SIM_QUIET") != "1":
        _print_summary(_state["launches"] - 1, report)
    if not timing_only:
        _write_back(chip, tensors, served)
    return None


def _print_summary(number, lines):
    # pto_sim numbers the launches of its chip; the script's count is ours
    # (a new chip restarts pto_sim's). Hazards (unordered overlapping GM
    # accesses) are shown when there are any.
    for line in lines:
        match = re.match(r"launch \d+ ", line)
        if match:
            print(f"pto_sim: launch {number} {line[match.end():]}", file=sys.stderr)
        elif "hazard" in line and line.strip() != "hazards: 0":
            print(f"pto_sim: {line.strip()}", file=sys.stderr)


def _write_back(chip, tensors, results):
    with open(os.path.join(results, "tensors.json"), encoding="utf-8") as f:
        index = json.load(f)
    by_id = {entry["id"]: entry for entry in index["tensors"]}
    for t in tensors:
        held = chip.known.get(t.identity())
        entry = by_id.get(held["id"]) if held is not None else None
        if entry is None or entry["file"] is None:
            continue
        with open(os.path.join(results, entry["file"]), "rb") as f:
            data = f.read()
        t.store(data)
        chip.remember_contents(t, data)


__all__ = ["launch"]
