"""Launches until stopped (the Ctrl-C test)."""

import pypto.language as pl
import torch


@pl.jit
def copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], c)
    return c


a = torch.ones(16, 16)
c = torch.zeros(16, 16)
print("started", flush=True)
while True:
    copy(a, c)
