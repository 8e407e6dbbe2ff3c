"""Argument tensors across the process boundary: torch <-> little-endian bytes."""

import torch

from pypto.errors import ConfigError
from pypto.language._dsl import expression_of

# torch dtype -> the stream's dtype name (proto/task_stream.proto DType).
_DTYPES = {
    torch.float32: "FP32",
    torch.float16: "FP16",
    torch.bfloat16: "BF16",
    torch.int64: "INT64",
    torch.int32: "INT32",
    torch.int16: "INT16",
    torch.int8: "INT8",
    torch.uint8: "UINT8",
    torch.bool: "BOOL",
}


def torch_dtype_of(name):
    """The torch dtype of a stream dtype name ("FP32"); INDEX is int64."""
    if name == "INDEX":
        return torch.int64
    for dtype, n in _DTYPES.items():
        if n == name:
            return dtype
    raise ConfigError(f"pl.{name} has no torch dtype the device model takes")


def dtype_name(dtype, what):
    if dtype in _DTYPES:
        return _DTYPES[dtype]
    names = ", ".join(str(d).replace("torch.", "") for d in _DTYPES)
    raise ConfigError(f"{what}: dtype {dtype} is not supported on the device model; use one of {names}")


def _bits_of(tensor):
    """The integer dtype of the tensor's element width: bytes go through it
    (numpy has no bfloat16)."""
    return {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[tensor.element_size()]


class ArgumentTensor:
    def __init__(self, name, tensor, dtype, shape, shape_only, source=None):
        self.name = name
        self.tensor = tensor  # the caller's torch tensor (None for a TensorSpec)
        self.source = tensor if source is None else source  # what the caller passed
        self._payload = None
        self.dtype = dtype
        self.shape = shape
        self.shape_only = shape_only

    def identity(self):
        """What makes two calls' arguments one device tensor: the same storage
        viewed the same way (a TensorSpec or meta tensor: the same object)."""
        if self.shape_only:
            return ("object", id(self.source), tuple(self.shape), self.dtype)
        t = self.tensor
        return ("cpu", t.data_ptr(), tuple(t.shape), tuple(t.stride()), self.dtype)

    def payload(self):
        """The bytes as of the first ask: one call digests and sends them."""
        if self._payload is None:
            t = self.tensor.detach().contiguous()
            if t.dtype == torch.bool:
                t = t.to(torch.uint8)
            self._payload = t.view(_bits_of(t)).numpy().tobytes() if t.numel() else b""
        return self._payload

    def store(self, data):
        t = self.tensor
        as_int = _bits_of(t)
        raw = torch.frombuffer(bytearray(data), dtype=as_int) if data else torch.empty(0, dtype=as_int)
        values = raw.view(torch.uint8).to(torch.bool) if t.dtype == torch.bool else raw.view(t.dtype)
        with torch.no_grad():
            t.copy_(values.reshape(t.shape))


def argument_tensor(name, value, what):
    from pypto.runtime import TensorSpec

    if isinstance(value, TensorSpec):
        dtype = dtype_name(value.dtype, what)
        init = value.init_value
        if init is None or init in (torch.randn, torch.rand):
            # Shapes only: the launch runs timing only.
            return ArgumentTensor(name, None, dtype, list(value.shape), True, source=value)
        # Values the host wrote (a constant, a tensor, zeros / ones, a
        # callable): sent with the launch, so that a kernel's pl.read of them
        # can decide control even when the other arguments are shapes only.
        # One tensor per TensorSpec, so calls share it as one device tensor.
        held = getattr(value, "_pypto_tensor", None)
        if held is None:
            held = value.create_tensor()
            value._pypto_tensor = held
        return ArgumentTensor(name, held, dtype, list(value.shape), False, source=value)
    if not isinstance(value, torch.Tensor):
        raise ConfigError(
            f"{what}: expected a torch.Tensor, a TensorSpec or a number, got {type(value).__name__}"
        )
    device = value.device.type
    if device not in ("cpu", "meta"):
        raise ConfigError(
            f"{what}: a tensor on device '{value.device}'; pto_sim takes CPU tensors (real data) "
            "or torch.device('meta') tensors (timing only)"
        )
    if value.dim() == 0:
        raise ConfigError(f"{what}: a 0-dim tensor; the runtime's tensors have 1 to 5 dims")
    return ArgumentTensor(name, value, dtype_name(value.dtype, what), list(value.shape),
                          device == "meta")


def scalar_literal(value):
    """The literal for a number argument, or None for anything else."""
    return expression_of(value) if isinstance(value, (bool, int, float)) else None
