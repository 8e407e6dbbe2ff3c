# Loop carries (docs/ptoc.md, "Loop carries and values between tasks"): a row
# sum of squares accumulated over 8 column chunks inside one device loop,
# written both ways PyPTO allows (upstream hw-native-sys/pypto e2d0f78a,
# docs/en/user/language/02-control-flow.md): by rebinding the accumulator,
# and with init_values= + pl.yield_. Each block of the SPMD task owns 16 rows;
# the carried [16, 1] tile is one register the loop refreshes every iteration.
import pypto.language as pl
import torch

ROWS, COLS, CHUNK, BLOCKS = 64, 512, 64, 4
BLOCK_ROWS = ROWS // BLOCKS


@pl.jit
def sum_squares_rebound(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    for b in pl.spmd(BLOCKS):
        acc = pl.mul(pl.load(x, [b * BLOCK_ROWS, 0], [BLOCK_ROWS, 1]), 0.0)
        tmp = pl.create_tile([BLOCK_ROWS, CHUNK], dtype=pl.FP32)  # the row sum's scratch
        for c in pl.range(COLS // CHUNK):
            t = pl.load(x, [b * BLOCK_ROWS, c * CHUNK], [BLOCK_ROWS, CHUNK])
            acc = pl.add(acc, pl.row_sum(pl.mul(t, t), tmp))
        pl.store(acc, [b * BLOCK_ROWS, 0], out)
    return out


@pl.jit
def sum_squares_yield(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    for b in pl.spmd(BLOCKS):
        zero = pl.mul(pl.load(x, [b * BLOCK_ROWS, 0], [BLOCK_ROWS, 1]), 0.0)
        tmp = pl.create_tile([BLOCK_ROWS, CHUNK], dtype=pl.FP32)
        for c, (acc,) in pl.range(COLS // CHUNK, init_values=(zero,)):
            t = pl.load(x, [b * BLOCK_ROWS, c * CHUNK], [BLOCK_ROWS, CHUNK])
            total = pl.yield_(pl.add(acc, pl.row_sum(pl.mul(t, t), tmp)))
        pl.store(total, [b * BLOCK_ROWS, 0], out)
    return out


torch.manual_seed(0)
X = torch.randn(ROWS, COLS, dtype=torch.float32)
EXPECTED = (X * X) @ torch.full((COLS, 1), 1.0)
for kernel in (sum_squares_rebound, sum_squares_yield):
    out = torch.zeros(ROWS, 1, dtype=torch.float32)
    kernel(X, out)
    torch.testing.assert_close(out, EXPECTED, rtol=1e-5, atol=1e-4)
