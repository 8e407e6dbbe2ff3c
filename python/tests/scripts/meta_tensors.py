"""Timing only: meta tensors and TensorSpecs carry shapes, no contents."""

import pypto.language as pl
import torch
from pypto.runtime import RunConfig, TensorSpec

N = 4096


@pl.jit
def stream_copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    for i in pl.range(0, N, 256):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [i, 0], [256, 256]), [i, 0], c)
    return c


a = torch.empty(N, 256, dtype=torch.bfloat16, device="meta")
c = torch.empty(N, 256, dtype=torch.bfloat16, device="meta")
stream_copy(a, c, config=RunConfig())
stream_copy(TensorSpec("a", [N, 256], torch.bfloat16), TensorSpec("c", [N, 256], torch.bfloat16))
print("OK")
