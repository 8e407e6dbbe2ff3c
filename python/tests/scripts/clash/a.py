import pypto.language as pl

TILE = 32


@pl.jit.inline
def load_a(src):
    return pl.load(src, [0, 0], [TILE, 64])
