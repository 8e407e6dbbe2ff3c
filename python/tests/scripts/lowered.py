"""kernel.lower(*args) compiles the call with ptoc (no simulation), as
upstream's 06_dyn_valid_shape example uses it; --bad lowers a kernel whose
valid_shape is wider than its tile."""
import sys

import pypto.language as pl
import torch
from pypto.backend.pto_backend import PartialCodegenError

BAD = "--bad" in sys.argv


@pl.jit
def ragged(data: pl.Tensor, cfg: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        n = pl.read(cfg, [0])
        if n == 1:
            vlen = 40
        else:
            vlen = 64
        t = pl.load(data, [0, 0], [16, 64], valid_shape=[16, 100 if BAD else vlen])
        pl.store(pl.tile.fillpad(t, pad_value=pl.PadValue.min), [0, 0], out)
    return out


try:
    program = ragged.lower(torch.randn(16, 64), torch.tensor([1], dtype=torch.int32),
                           torch.zeros(16, 64))
    print(f"lowered: {len(program.functions)} fn(s)")
except PartialCodegenError as e:
    print(f"rejected: {e}")
