# Device-side control (docs/ptoc.md, "Device-side control"): each block of a
# kernel takes its own path at run time. An SPMD kernel whose blocks branch
# on their index and on values read with pl.read; a ragged-tail loop whose
# trip count and last block's valid width come from a tensor
# (hw-native-sys/pypto@e2d0f78a examples/intermediate/06_dyn_valid_shape.py's
# idiom) with pl.load(valid_shape=) and pl.tile.fillpad; and the accumulator
# form `if k == 0: pl.matmul ... else: pl.matmul_acc`; and pl.slice of a tile at a
# device offset.
import pypto.language as pl
import torch

R, C = 16, 64
BLOCKS = 4


@pl.jit
def branchy(x: pl.Tensor, mode: pl.Tensor, out: pl.Out[pl.Tensor]):
    # Block b reads mode[b]: 1 doubles its rows, anything else negates them;
    # odd blocks then add one (a phi of the then arm's tile and the prior).
    for b in pl.spmd(BLOCKS):
        t = pl.load(x, [b * R, 0], [R, C])
        m = pl.read(mode, [b])
        if m == 1:
            y = pl.mul(t, 2.0)
        else:
            y = pl.neg(t)
        if b % 2 == 1:
            y = pl.add(y, 1.0)
        pl.store(y, [b * R, 0], out)
    return out


@pl.jit
def ragged_rows(data: pl.Tensor, cfg: pl.Tensor, out: pl.Out[pl.Tensor]):
    # cfg = [n_blocks, last_valid_len]: n_blocks tiles of C columns, the last
    # one only last_valid_len wide; each tile's row maxima over its valid part.
    with pl.at(level=pl.Level.CORE_GROUP):
        n_blocks = pl.cast(pl.read(cfg, [0]), pl.INDEX)
        last = pl.read(cfg, [1])
        for i in pl.range(n_blocks):
            if i == n_blocks - 1:
                vlen = last
            else:
                vlen = C
            s = pl.load(data, [0, i * C], [R, C], valid_shape=[R, vlen])
            padded = pl.tile.fillpad(s, pad_value=pl.PadValue.min)
            tmp = pl.create_tile([R, C], dtype=pl.FP32)
            pl.store(pl.row_max(padded, tmp), [0, i], out)
    return out


@pl.jit
def accumulate(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.create_tile([32, 32], dtype=pl.FP32, target_memory=pl.MemorySpace.Acc)
        for k in pl.range(4):
            ta = pl.move(pl.load(a, [0, k * 16], [32, 16], target_memory=pl.MemorySpace.Mat),
                         target_memory=pl.MemorySpace.Left)
            tb = pl.move(pl.load(b, [k * 16, 0], [16, 32], target_memory=pl.MemorySpace.Mat),
                         target_memory=pl.MemorySpace.Right)
            if k == 0:
                acc = pl.matmul(ta, tb)
            else:
                acc = pl.matmul_acc(acc, ta, tb)
        pl.store(acc, [0, 0], c)
    return c


@pl.jit
def reversed_rows(x: pl.Tensor, src: pl.Tensor, y: pl.Out[pl.Tensor]):
    # pl.slice of a tile at a device offset (EXTRACT), assembled back in
    # reverse row order: upstream examples/intermediate/05_assemble.py's
    # row-by-row pattern.
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_x = pl.load(x, [0, 0], [16, 32], target_memory=pl.MemorySpace.Vec)
        tile_src = pl.load(src, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)
        for i in pl.range(16):
            row = pl.slice(tile_src, [1, 16], [15 - i, 0])
            tile_x = pl.tile.assemble(tile_x, row, [i, 16])
        pl.store(tile_x, [0, 0], y)
    return y


torch.manual_seed(0)
X = torch.randn(BLOCKS * R, C)
MODE = torch.tensor([1, 0, 0, 1], dtype=torch.int32)
out = torch.zeros(BLOCKS * R, C)
branchy(X, MODE, out)
expected = X.clone().reshape(BLOCKS, R, C)
for b in range(BLOCKS):
    expected[b] = expected[b] * 2 if MODE[b] == 1 else -expected[b]
    if b % 2 == 1:
        expected[b] += 1
torch.testing.assert_close(out, expected.reshape(BLOCKS * R, C))

DATA = -torch.rand(R, 3 * C) - 1.0  # all negative: padding with 0 would win every max
CFG = torch.tensor([3, 40], dtype=torch.int32)
out = torch.zeros(R, 3)
ragged_rows(DATA, CFG, out)
expected = torch.stack([DATA[:, 0:C].max(1).values, DATA[:, C:2 * C].max(1).values,
                        DATA[:, 2 * C:2 * C + 40].max(1).values], dim=1)
torch.testing.assert_close(out, expected)

A = torch.randn(32, 64)
B = torch.randn(64, 32)
c = torch.zeros(32, 32)
accumulate(A, B, c)
torch.testing.assert_close(c, A @ B, rtol=1e-4, atol=1e-4)

X = torch.randn(16, 32)
S = torch.randn(16, 16)
y = torch.zeros(16, 32)
reversed_rows(X, S, y)
expected = X.clone()
expected[:, 16:] = S.flip(0)
torch.testing.assert_close(y, expected)
