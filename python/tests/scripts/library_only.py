"""Defines kernels and never launches one: a library module."""

import pypto.language as pl


@pl.jit
def unused(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], c)
    return c


print("library loaded")
