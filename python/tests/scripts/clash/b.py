import pypto.language as pl
import torch

from .a import load_a

TILE = 16


@pl.jit
def both(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(load_a(x), [0, 0], out)
        pl.store(pl.load(x, [0, 0], [TILE, 64]), [0, 0], out)
    return out


if __name__ == "__main__":
    both(torch.ones(32, 64), torch.zeros(32, 64))
