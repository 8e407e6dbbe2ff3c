"""Timing only with control from the host: the data is meta, the trip count
comes from a TensorSpec with values (or, with --meta-count, from a meta
tensor, which ptoc refuses where it is read)."""
import sys

import pypto.language as pl
import torch
from pypto.runtime import TensorSpec

N = 1024


@pl.jit
def first_rows(a: pl.Tensor, cfg: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(pl.read(cfg, [0])):
            pl.store(pl.load(a, [i * 64, 0], [64, 256]), [i * 64, 0], c)
    return c


a = torch.empty(N, 256, dtype=torch.float32, device="meta")
c = torch.empty(N, 256, dtype=torch.float32, device="meta")
for rows in (2, 8):
    if "--meta-count" in sys.argv:
        cfg = torch.empty(1, dtype=torch.int32, device="meta")
    else:
        cfg = TensorSpec("cfg", [1], torch.int32, init_value=torch.tensor([rows], dtype=torch.int32))
    first_rows(a, cfg, c)
print("OK")
