"""A right and a wrong golden on one kernel output (the recording test)."""

import pypto.language as pl
import torch


@pl.jit
def double(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.mul(pl.load(a, [0, 0], [16, 64]), 2.0), [0, 0], out)
    return out


a = torch.arange(16 * 64, dtype=torch.float32).reshape(16, 64)
out = torch.zeros(16, 64)
double(a, out)
torch.testing.assert_close(out, a * 2, rtol=1e-5, atol=1e-5)
assert torch.allclose(out, a * 3), "the wrong golden"
print("done")
