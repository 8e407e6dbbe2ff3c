# PyPTO's tile reductions, broadcasts and shape ops (docs/ptoc.md, "The pl
# API"; hw-native-sys/pypto@e2d0f78a python/pypto/language/op/tile_ops.py),
# each kernel checked against torch: a row softmax, a layer norm over rows
# with column statistics, concat / assemble / reshape / transpose views, the
# accumulator assembled into L1, fills and cast modes, and FP16, BF16 and
# INT32 tiles.
import pypto.language as pl
import torch

R, C = 32, 64


@pl.jit
def softmax(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [R, C])
        tmp = pl.create_tile([R, C], dtype=pl.FP32)
        shifted = pl.row_expand_sub(t, pl.row_max(t, tmp))
        e = pl.exp(shifted)
        pl.store(pl.row_expand_div(e, pl.row_sum(e, tmp)), [0, 0], out)
    return out


@pl.jit
def column_stats(x: pl.Tensor, gamma: pl.Tensor, out: pl.Out[pl.Tensor],
                 stats: pl.Out[pl.Tensor]):
    # out = (x - column mean) * gamma per column, clipped to the row's
    # [min, max], plus a tile of ones made by broadcasts; stats rows: column
    # sum (tree path), max, min, the row minima as one row, then each row's
    # min + max spread over its columns.
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [R, C])
        g = pl.load(gamma, [0, 0], [1, C])
        scratch = pl.create_tile([R, C], dtype=pl.FP32)
        col_sum = pl.col_sum(t, scratch)
        mean = pl.mul(pl.col_sum(t), 1.0 / R)
        centered = pl.col_expand_sub(t, mean)
        scaled = pl.col_expand_mul(centered, g)
        row_min = pl.row_min(t, scratch)
        row_max = pl.row_max(t, scratch)
        clipped = pl.row_expand_min(pl.row_expand_max(scaled, row_min), row_max)
        ones = pl.col_expand_div(pl.col_expand_add(pl.tile.full([1, C], pl.FP32, 0.0), g), g)
        pl.store(pl.add(clipped, pl.col_expand(t, ones)), [0, 0], out)
        pl.store(col_sum, [0, 0], stats)
        pl.store(pl.col_max(t), [1, 0], stats)
        pl.store(pl.col_min(t), [2, 0], stats)
        pl.store(pl.reshape(row_min, [1, R]), [3, 0], stats)
        pl.store(pl.row_expand(t, pl.row_expand_add(row_min, row_max)), [4, 0], stats)
    return out


@pl.jit
def shapes(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor], turned: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        left = pl.load(a, [0, 0], [R, 16])
        right = pl.load(b, [0, 0], [R, 48])
        joined = pl.concat(left, right)
        patch = pl.relu(pl.load(b, [0, 0], [8, 16]))
        for i in pl.range(2):  # offsets from a device loop
            joined = pl.tile.assemble(joined, patch, [i * 8, 16])
        pl.store(joined, [0, 0], out)
        flat = pl.reshape(pl.maximums(pl.minimums(left, 1.0), -1.0), [16, R])
        pl.store(pl.tile.transpose_view(flat), [0, 0], turned)
    return out


@pl.jit
def transposed_product(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):
    # w is stored [N, K]; its chunk is read through a transposed view, and
    # the accumulator is assembled into an L1 tile before it leaves.
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        y = pl.load(w, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        acc = pl.matmul(x, pl.tile.transpose_view(y))
        frame = pl.load(out, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        pl.store(pl.tile.assemble(frame, acc, [pl.max(0, 16 - 16), pl.min(0, 4)]), [0, 0], out)
    return out


@pl.jit
def casts(x: pl.Tensor, rint: pl.Out[pl.Tensor], floor: pl.Out[pl.Tensor],
          halves: pl.Out[pl.Tensor], words: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [4, 8])
        pl.store(pl.cast(t, pl.INT32, mode="rint"), [0, 0], rint)
        pl.store(pl.cast(t, pl.INT32, mode=3), [0, 0], floor)  # 3 = "floor"
        h = pl.cast(t, pl.BF16, mode="trunc")
        tmp = pl.create_tile([4, 8], dtype=pl.BF16)
        pl.store(pl.row_expand_sub(h, pl.row_max(h, tmp)), [0, 0], halves)
        i = pl.cast(t, pl.INT32)  # "round": ties away from zero
        pl.store(pl.col_expand_mul(i, pl.col_max(i)), [0, 0], words)
    return rint


torch.manual_seed(0)
X = torch.randn(R, C, dtype=torch.float32)
out = torch.zeros(R, C)
softmax(X, out)
torch.testing.assert_close(out, torch.softmax(X, dim=-1), rtol=1e-5, atol=1e-6)

G = torch.randn(1, C, dtype=torch.float32)
out = torch.zeros(R, C)
stats = torch.zeros(4 + R, C)
column_stats(X, G, out, stats)
row_min = X.min(dim=1, keepdim=True).values
row_max = X.max(dim=1, keepdim=True).values
expected = torch.minimum(torch.maximum((X - X.mean(dim=0)) * G, row_min), row_max) + 1
torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
torch.testing.assert_close(stats[0], X.sum(dim=0), rtol=1e-5, atol=1e-5)
torch.testing.assert_close(stats[1], X.max(dim=0).values)
torch.testing.assert_close(stats[2], X.min(dim=0).values)
torch.testing.assert_close(stats[3, :R], row_min[:, 0])
torch.testing.assert_close(stats[4:], (row_min + row_max).expand(R, C))

A = torch.randn(R, 16)
B = torch.randn(R, 48)
out = torch.zeros(R, C)
turned = torch.zeros(R, 16)
shapes(A, B, out, turned)
expected = torch.cat([A, B], dim=1)
expected[0:8, 16:32] = torch.relu(B[0:8, 0:16])
expected[8:16, 16:32] = torch.relu(B[0:8, 0:16])
torch.testing.assert_close(out, expected)
torch.testing.assert_close(turned, A.clamp(-1.0, 1.0).reshape(16, R).t())

A = torch.randn(16, 32)
W = torch.randn(16, 32)
out = torch.full((32, 16), 7.0)
transposed_product(A, W, out)
expected = torch.full((32, 16), 7.0)
expected[0:16, 0:16] = A @ W.t()
torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)

X = torch.tensor([[2.5, -2.5, 3.5, -0.5, 0.5, 1.25, -1.75, 7.0]] * 4) * torch.arange(1, 5).reshape(4, 1)
rint = torch.zeros(4, 8, dtype=torch.int32)
floor = torch.zeros(4, 8, dtype=torch.int32)
halves = torch.zeros(4, 8, dtype=torch.bfloat16)
words = torch.zeros(4, 8, dtype=torch.int32)
casts(X, rint, floor, halves, words)
torch.testing.assert_close(rint, torch.round(X).to(torch.int32))  # torch.round is half to even
torch.testing.assert_close(floor, torch.floor(X).to(torch.int32))
h = X.to(torch.bfloat16)  # exact: these values fit BF16
torch.testing.assert_close(halves, h - h.max(dim=1, keepdim=True).values)
i = torch.where(X >= 0, torch.floor(X + 0.5), torch.ceil(X - 0.5)).to(torch.int32)
torch.testing.assert_close(words, i * i.max(dim=0, keepdim=True).values)
