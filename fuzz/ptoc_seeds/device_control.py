import pypto.language as pl

R, C = 32, 64


@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    for b in pl.spmd(2):
        n = pl.tensor.dim(a, 0) // 16
        for i in pl.range(n):
            if b == 0:
                t = pl.load(a, [i * 16, 0], [16, C], valid_shape=[16, C - 8 * i])
                t = pl.tile.fillpad(t, pad_value=pl.PadValue.min)
            else:
                t = pl.neg(pl.load(a, [i * 16, 0], [16, C]))
            pl.store(t, [i * 16, 0], out)
    return out
