# The cube's memory spaces written out: loads into Mat (L1), pl.move into
# Left / Right (L0A / L0B), pl.matmul_acc accumulating in Acc (L0C) over a K
# loop, and an Acc -> Vec move feeding the vector core of a MIX task. The
# forms follow hw-native-sys/pypto@e2d0f78a examples/intermediate/04_matmul_acc.py
# and tests/st/runtime/ops/test_matmul_acc_init_cond.py.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

M, K, N, KT = 64, 128, 64, 32
CFG = RunConfig(platform="a2a3sim")

torch.manual_seed(0)
A = torch.randn(M, K, dtype=torch.float32)
B = torch.randn(K, N, dtype=torch.float32)
BIAS = torch.randn(M, N, dtype=torch.float32)


@pl.jit
def two_chunks(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a0 = pl.load(a, [0, 0], [M, K // 2], target_memory=pl.MemorySpace.Mat)
        b0 = pl.load(b, [0, 0], [K // 2, N], target_memory=pl.MemorySpace.Mat)
        acc: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.matmul(
            pl.move(a0, target_memory=pl.MemorySpace.Left),
            pl.move(b0, target_memory=pl.MemorySpace.Right))
        a1 = pl.load(a, [0, K // 2], [M, K // 2], target_memory=pl.Mem.Mat)
        b1 = pl.load(b, [K // 2, 0], [K // 2, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul_acc(acc, pl.move(a1, target_memory=pl.Mem.Left),
                            pl.move(b1, target_memory=pl.Mem.Right))
        pl.store(acc, [0, 0], c)
    return c


@pl.jit
def split_k(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        # Any value: the first step's init_cond overwrites it.
        a_first = pl.load(a, [0, 0], [M, KT], target_memory=pl.Mem.Mat)
        b_first = pl.load(b, [0, 0], [KT, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a_first, target_memory=pl.Mem.Left),
                        pl.move(b_first, target_memory=pl.Mem.Right))
        for k in pl.range(0, K, KT):
            a_l1 = pl.load(a, [0, k], [M, KT], target_memory=pl.Mem.Mat)
            b_l1 = pl.load(b, [k, 0], [KT, N], target_memory=pl.Mem.Mat)
            a_l0 = pl.move(a_l1, target_memory=pl.Mem.Left)
            b_l0 = pl.move(b_l1, target_memory=pl.Mem.Right)
            acc = pl.matmul_acc(acc, a_l0, b_l0, init_cond=(k == 0))
        pl.store(acc, [0, 0], c)
    return c


@pl.jit
def split_k_bias(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a_first = pl.load(a, [0, 0], [M, KT], target_memory=pl.Mem.Mat)
        b_first = pl.load(b, [0, 0], [KT, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a_first, target_memory=pl.Mem.Left),
                        pl.move(b_first, target_memory=pl.Mem.Right))
        for k in pl.range(0, K, KT):
            a_l1 = pl.load(a, [0, k], [M, KT], target_memory=pl.Mem.Mat)
            b_l1 = pl.load(b, [k, 0], [KT, N], target_memory=pl.Mem.Mat)
            acc = pl.matmul_acc(acc, pl.move(a_l1, target_memory=pl.Mem.Left),
                                pl.move(b_l1, target_memory=pl.Mem.Right), init_cond=(k == 0))
        # Acc -> Vec crosses from the cube to the vector core (MIX).
        out = pl.add(pl.move(acc, target_memory=pl.Mem.Vec),
                     pl.load(bias, [0, 0], [M, N], target_memory=pl.Mem.Vec))
        pl.store(out, [0, 0], c)
    return c


for kernel in (two_chunks, split_k):
    c = torch.zeros(M, N, dtype=torch.float32)
    kernel(A, B, c, config=CFG)
    torch.testing.assert_close(c, A @ B, rtol=1e-4, atol=1e-4)

c = torch.zeros(M, N, dtype=torch.float32)
split_k_bias(A, B, BIAS, c, config=CFG)
torch.testing.assert_close(c, A @ B + BIAS, rtol=1e-4, atol=1e-4)
