import pypto.language as pl

from .ops import TILE, broken_tile, scaled_tile

ROWS = 64


@pl.jit
def scale_rows(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    for r in pl.range(0, ROWS, TILE):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(scaled_tile(x, r, 3.0), [r, 0], out)
    return out


@pl.jit
def uses_broken(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(broken_tile(x, 0), [0, 0], out)
    return out
