# PyPTO's version-10 vector ops (docs/ptoc.md, "The pl API";
# hw-native-sys/pypto@e2d0f78a python/pypto/language/op/tile_ops.py), each
# kernel checked against torch: activations and transcendental ops, packed
# compare masks and selects, triangles, products, remainders, bitwise not,
# the partial ops over valid regions and the exp-diff broadcast.
import pypto.language as pl
import torch

R, C = 16, 32


@pl.jit
def activations(x: pl.Tensor, slope: pl.Tensor, out: pl.Out[pl.Tensor]):
    # out rows: |x|, log(|x| + 1), sin(x) * cos(x), lrelu(x, 0.1), prelu(x, slope)
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [R, C])
        s = pl.load(slope, [0, 0], [R, C])
        tmp = pl.create_tile([R, C], dtype=pl.FP32)
        a = pl.abs(t)
        pl.store(a, [0, 0], out)
        pl.store(pl.log(pl.add(a, 1.0)), [R, 0], out)
        pl.store(pl.mul(pl.tile.sin(t), pl.tile.cos(t)), [2 * R, 0], out)
        pl.store(pl.tile.lrelu(t, 0.1), [3 * R, 0], out)
        pl.store(pl.tile.prelu(t, s, tmp), [4 * R, 0], out)
    return out


@pl.jit
def masks(x: pl.Tensor, y: pl.Tensor, picked: pl.Out[pl.Tensor], clipped: pl.Out[pl.Tensor],
          greater: pl.Out[pl.Tensor], lower: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a = pl.load(x, [0, 0], [R, C])
        b = pl.load(y, [0, 0], [R, C])
        tmp = pl.tile.create([1, 32], dtype=pl.UINT8)
        ge: pl.Tile[[R, 32], pl.UINT8] = pl.tile.cmp(a, b, cmp_type=5)
        pl.store(pl.tile.sel(ge, a, b, tmp), [0, 0], picked)  # the larger of the two
        neg = pl.tile.cmps(a, 0.0, cmp_type=2)
        pl.store(pl.tile.sels(neg, a, tmp, 0.0), [0, 0], clipped)  # min(x, 0)
        pl.store(pl.cmp(x, y, cmp_type=4), [0, 0], greater)  # the tensor level: 1.0 / 0.0
        pl.store(pl.tile.tri(-1, [R, C], dtype=pl.FP32), [0, 0], lower)
    return picked


@pl.jit
def reductions(x: pl.Tensor, n: pl.Tensor, rows: pl.Out[pl.Tensor], cols: pl.Out[pl.Tensor],
               mods: pl.Out[pl.Tensor], inverted: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [R, 8])
        tmp = pl.create_tile([R, 8], dtype=pl.FP32)
        pl.store(pl.row_prod(t, tmp), [0, 0], rows)
        pl.store(pl.col_prod(t), [0, 0], cols)
        pl.store(pl.fmods(pl.mul(t, 7.0), 2.5), [0, 0], mods)
        pl.store(pl.fmod(pl.mul(t, 7.0), pl.add(pl.abs(t), 0.5)), [R, 0], mods)
        pl.store(pl.not_(pl.load(n, [0, 0], [R, 8])), [0, 0], inverted)
    return rows


@pl.jit
def partial_and_expdif(x: pl.Tensor, y: pl.Tensor, summed: pl.Out[pl.Tensor],
                       numerators: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a = pl.load(x, [0, 0], [R, C])
        b = pl.load(y, [0, 0], [R, C], valid_shape=[8, 16])
        pl.store(pl.part_add(a, b), [0, 0], summed)
        tmp = pl.create_tile([R, C], dtype=pl.FP32)
        pl.store(pl.row_expand_expdif(a, pl.row_max(a, tmp)), [0, 0], numerators)
    return summed


torch.manual_seed(0)
X = torch.randn(R, C)
S = torch.rand(R, C)
out = torch.zeros(5 * R, C)
activations(X, S, out)
torch.testing.assert_close(out[:R], X.abs())
torch.testing.assert_close(out[R:2 * R], torch.log(X.abs() + 1))
torch.testing.assert_close(out[2 * R:3 * R], torch.sin(X) * torch.cos(X))
torch.testing.assert_close(out[3 * R:4 * R], torch.where(X > 0, X, 0.1 * X))
torch.testing.assert_close(out[4 * R:], torch.where(X > 0, X, S * X))

Y = torch.randn(R, C)
picked, clipped, greater, lower = (torch.zeros(R, C) for _ in range(4))
masks(X, Y, picked, clipped, greater, lower)
torch.testing.assert_close(picked, torch.maximum(X, Y))
torch.testing.assert_close(clipped, X.clamp(max=0.0))
torch.testing.assert_close(greater, (X > Y).float())
torch.testing.assert_close(lower, torch.tril(torch.ones(R, C), diagonal=-1))

P = torch.rand(R, 8) + 0.5
N = torch.randint(-100, 100, (R, 8), dtype=torch.int32)
rows, cols, mods = torch.zeros(R, 1), torch.zeros(1, 8), torch.zeros(2 * R, 8)
inverted = torch.zeros(R, 8, dtype=torch.int32)
reductions(P, N, rows, cols, mods, inverted)
torch.testing.assert_close(rows, P.prod(dim=1, keepdim=True), rtol=1e-5, atol=1e-6)
torch.testing.assert_close(cols, P.prod(dim=0, keepdim=True), rtol=1e-5, atol=1e-6)
torch.testing.assert_close(mods[:R], torch.fmod(P * 7, 2.5), rtol=1e-5, atol=1e-5)
torch.testing.assert_close(mods[R:], torch.fmod(P * 7, P.abs() + 0.5), rtol=1e-5, atol=1e-5)
torch.testing.assert_close(inverted, torch.bitwise_not(N))

summed, numerators = torch.zeros(R, C), torch.zeros(R, C)
partial_and_expdif(X, Y, summed, numerators)
expected = X.clone()
expected[:8, :16] += Y[:8, :16]
torch.testing.assert_close(summed, expected)
torch.testing.assert_close(numerators, torch.exp(X - X.max(dim=1, keepdim=True).values))
