import pypto.language as pl


@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(pl.load(a, [0, 0], [64, 16]), pl.load(a, [0, 0], [16, 64]))
        for kk in pl.range(1, 4):
            acc = pl.matmul_acc(acc, pl.load(a, [0, kk * 16], [64, 16]),
                                pl.load(a, [kk * 16, 0], [16, 64]))
        pl.store(acc, [0, 0], out)
    return out
