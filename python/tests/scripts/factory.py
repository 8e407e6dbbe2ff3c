"""Kernels built by a factory: the closure's values reach the kernel."""

import pypto.language as pl
import torch


def make_scaler(rows, cols, factor):
    @pl.jit
    def scale(a: pl.Tensor, c: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.mul(pl.load(a, [0, 0], [rows, cols]), factor), [0, 0], c)
        return c

    return scale


if __name__ == "__main__":
    for rows, factor in ((16, 2.0), (32, -0.5)):
        a = torch.randn(rows, 64)
        c = torch.zeros(rows, 64)
        make_scaler(rows, 64, factor)(a, c)
        assert torch.allclose(c, a * factor), f"rows {rows}: {(c - a * factor).abs().max()}"
    print("OK")
