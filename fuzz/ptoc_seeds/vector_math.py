import pypto.language as pl

R, C = 16, 32


@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="vector_math"):
        t = pl.load(a, [0, 0], [R, C], valid_shape=[8, 16])
        tmp = pl.tile.create([1, 32], dtype=pl.UINT8)
        m = pl.tile.cmps(t, 0.0, cmp_type=4)
        s = pl.tile.sels(m, pl.abs(t), tmp, -1.0)
        u = pl.tile.prelu(pl.tile.lrelu(s, 0.1), pl.tile.sin(t), pl.create_tile([R, C], dtype=pl.FP32))
        v = pl.part_add(pl.fmods(u, 2.0), pl.log(pl.add(pl.abs(t), 1.0)))
        w = pl.row_expand_expdif(v, pl.row_prod(v, pl.create_tile([R, C], dtype=pl.FP32)))
        pl.store(pl.mul(w, pl.tile.tri(0, [R, C], dtype=pl.FP32, upper=True)), [0, 0], out)
    return out
