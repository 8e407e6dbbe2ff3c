# A chip-level BF16 GEMM on the 24 AIC cores: C[3072, 2048] (FP32) =
# A[3072, 2048] @ B[2048, 2048], the shape of the core-pipes issue. Base tile
# 128 x 256 of C per output tile (its FP32 accumulator is exactly L0C's
# 128 KiB); 192 output tiles, 8 per block of a 24-block SPMD task. The kernel
# form is the pipelined K loop of hw-native-sys/pypto@e2d0f78a
# examples/models/qwen3_jit/kernels/projection.py: an accumulator with no
# contents yet (pl.tile.create in Acc), pl.matmul_acc over every K chunk in a
# pl.pipeline loop, its init_cond=(kk == 0) overwriting at the first chunk
# (upstream's `if k0 == 0: matmul else: matmul_acc`), one FIXPIPE store per
# output tile. K chunks of 128 let four copies of a chunk's L1 tiles (96 KiB
# each) fit L1, so MTE2 runs far enough ahead to cover each tile's L0C drain;
# regress/ compares the two-copy form of 256-chunks (TK = 256, stage=2).
# Shapes only (--timing-only): docs/pipes.md derives both rooflines.
import pypto.language as pl
import torch

M, K, N = 3072, 2048, 2048
TM, TN = 128, 256
TK = 128
BLOCKS = 24
TILES_N = N // TN
TILES_PER_BLOCK = (M // TM) * TILES_N // BLOCKS


@pl.jit
def gemm(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    for blk in pl.spmd(BLOCKS):
        for t in pl.range(TILES_PER_BLOCK):
            tile = blk * TILES_PER_BLOCK + t
            m0 = (tile // TILES_N) * TM
            n0 = (tile % TILES_N) * TN
            acc = pl.tile.create([TM, TN], dtype=pl.FP32, target_memory=pl.Mem.Acc)
            for kk in pl.pipeline(K // TK, stage=4):
                x = pl.load(a, [m0, kk * TK], [TM, TK])
                y = pl.load(b, [kk * TK, n0], [TK, TN])
                acc = pl.matmul_acc(acc, x, y, init_cond=(kk == 0))
            pl.store(acc, [m0, n0], c)
    return c


# The operands are shapes without contents (this workload is timing-only:
# torch.device("meta") under python3, ptoc --timing-only).
DEVICE = "meta"
A = torch.zeros(M, K, dtype=torch.bfloat16, device=DEVICE)
B = torch.zeros(K, N, dtype=torch.bfloat16, device=DEVICE)
C = torch.zeros(M, N, dtype=torch.float32, device=DEVICE)
gemm(A, B, C)
