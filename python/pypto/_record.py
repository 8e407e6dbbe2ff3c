"""Recording a script's run as one task stream: PTO_SIM_RECORD=RUN.pb.

The stream the script's chip reads (header, each call's Declare and launch)
is written to RUN.pb as well, and every torch.testing.assert_close or
torch.allclose the script evaluates on a kernel's output (an argument a
launch wrote, unchanged since) becomes a Check record after that launch: the
other operand as the expected contents, the call's tolerances. Replaying
RUN.pb with `pto_sim --trace` gives the same launches and checks without
Python.

While recording, a check that fails on the simulated result is reported as a
warning and the script goes on (assert_close returns, allclose says True),
so the stream is complete and its replay exits 1. The file appears under its
name only when the script ends without an error; otherwise the partial
stream is removed. PTO_SIM_RECORD must be set when pypto is imported; one
recording covers one chip.
"""

import atexit
import inspect
import os
import sys

import torch

from pypto.errors import ConfigError, InterpreterError

_state = {"recording": None, "failed": False}

# The header's recorder of a recorded run.
RECORDER = (f"pypto 0.1.0 (CPython {sys.version.split()[0]}, torch "
            f"{torch.__version__.split('+')[0]})")

# torch.testing.assert_close's default tolerances by dtype (torch 1.13,
# torch/testing/_comparison.py); allclose's are rtol 1e-5, atol 1e-8.
_ASSERT_CLOSE_DEFAULTS = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
}


def _varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


class Recording:
    def __init__(self, path):
        try:
            from pypto._proto import task_stream_pb2
        except ImportError as e:
            raise InterpreterError(
                f"PTO_SIM_RECORD needs protobuf for Python: {e}; apt-get install python3-protobuf"
            ) from None
        self.pb = task_stream_pb2
        self.path = path
        self.partial = f"{path}.partial"
        self.file = open(self.partial, "wb")
        self.chip = None
        self.checks = 0
        self.written = 0  # stream bytes: none when the script launched nothing

    def write(self, data):
        self.file.write(data)
        self.written += len(data)

    def add_check(self, tensor_id, expected, rtol, atol, equal_nan, name, origin):
        record = self.pb.StreamRecord()
        check = record.check
        check.tensor_id = tensor_id
        check.expected.data = expected
        check.rtol, check.atol, check.equal_nan = rtol, atol, equal_nan
        check.name, check.origin = name, origin
        body = record.SerializeToString()
        self.file.write(_varint(len(body)) + body)
        self.checks += 1

    def finish(self, ok):
        self.file.close()
        if ok and self.written > 0:
            os.replace(self.partial, self.path)
        elif ok:
            os.remove(self.partial)  # no launch, no stream (ptoc says so)
        else:
            try:
                os.remove(self.partial)
            except FileNotFoundError:
                pass
            print(f"pypto: {self.path} not written: the script failed", file=sys.stderr)


def recording():
    return _state["recording"]


def mark_failed():
    _state["failed"] = True


def finish():
    current = _state["recording"]
    _state["recording"] = None
    if current is not None:
        current.finish(not _state["failed"])


def _caller():
    """The script's frame that made the check: its "file:line" and the line."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    for frame in inspect.stack()[2:]:
        if not os.path.abspath(frame.filename).startswith(package):
            line = frame.code_context[0].strip() if frame.code_context else ""
            return f"{os.path.basename(frame.filename)}:{frame.lineno}", line
    return "", ""


def _kernel_output(value):
    """The chip's id of `value` when a launch wrote it and the host has not
    changed it since; None when the chip does not hold it; raises when the
    chip holds it but no launch wrote it."""
    current = _state["recording"]
    if current is None or current.chip is None or not isinstance(value, torch.Tensor):
        return None
    return current.chip.written_id(value)


def _record(actual_id, actual, expected, rtol, atol, equal_nan, where, line):
    expected = torch.as_tensor(expected, dtype=actual.dtype).expand(actual.shape).contiguous()
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[actual.element_size()]
    data = (expected.to(torch.uint8) if actual.dtype == torch.bool else expected).view(bits)
    _state["recording"].add_check(actual_id, data.numpy().tobytes(), float(rtol), float(atol),
                                  bool(equal_nan), line, where)


def _install():
    assert_close = torch.testing.assert_close
    allclose = torch.allclose

    def recorded_assert_close(actual, expected, *args, rtol=None, atol=None, equal_nan=False,
                              **kwargs):
        where, line = _caller()
        actual_id = _kernel_output(actual)
        if actual_id is None:
            return assert_close(actual, expected, *args, rtol=rtol, atol=atol,
                                equal_nan=equal_nan, **kwargs)
        if actual_id < 0:
            return None  # timing only: no result to compare
        if rtol is None or atol is None:
            rtol, atol = _ASSERT_CLOSE_DEFAULTS.get(actual.dtype, (0.0, 0.0))
        _record(actual_id, actual, expected, rtol, atol, equal_nan, where, line)
        try:
            assert_close(actual, expected, *args, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         **kwargs)
        except AssertionError as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else "mismatch"
            print(f"pypto: warning: {where}: check '{line}' fails on the simulated result "
                  f"(recorded; the replay exits 1): {first}", file=sys.stderr)
        return None

    def recorded_allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        where, line = _caller()
        for actual, expected in ((input, other), (other, input)):
            actual_id = _kernel_output(actual)
            if actual_id is None:
                continue
            if actual_id < 0:
                return True  # timing only: no result to compare
            _record(actual_id, actual, expected, rtol, atol, equal_nan, where, line)
            if not allclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan):
                print(f"pypto: warning: {where}: check '{line}' fails on the simulated result "
                      "(recorded; the replay exits 1)", file=sys.stderr)
            return True
        return allclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)

    torch.testing.assert_close = recorded_assert_close
    torch.allclose = recorded_allclose
    exit_ = sys.exit

    def recorded_exit(code=0):
        if code not in (None, 0):
            mark_failed()
        exit_(code)

    sys.exit = recorded_exit


def start_if_asked():
    path = os.environ.get("PTO_SIM_RECORD")
    if not path or _state["recording"] is not None:
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ConfigError(f"PTO_SIM_RECORD={path}: no such directory {directory}")
    _state["recording"] = Recording(path)
    _install()
    atexit.register(finish)  # also for a script that never launches (no chip)


__all__ = ["RECORDER", "recording", "start_if_asked", "finish", "mark_failed"]
