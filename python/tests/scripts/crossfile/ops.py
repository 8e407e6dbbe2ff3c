import pypto.language as pl

TILE = 32


@pl.jit.inline
def scaled_tile(src, row, factor):
    return pl.mul(pl.load(src, [row, 0], [TILE, 64]), factor)


@pl.jit.inline
def broken_tile(src, row):
    return pl.no_such_op(pl.load(src, [row, 0], [TILE, 64]))
