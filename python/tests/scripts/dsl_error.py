import pypto.language as pl
import torch


@pl.jit
def broken(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [16, 16])
        pl.store(pl.no_such_op(t), [0, 0], c)
    return c


a = torch.ones(16, 16)
c = torch.zeros(16, 16)
if __name__ == "__main__":
    broken(a, c)
