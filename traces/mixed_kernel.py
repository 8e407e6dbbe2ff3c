# Mixed kernel: one cube matmul feeding one vector add, in three forms, with
# the shapes and expected result of upstream hw-native-sys/pypto (e2d0f78a)
# examples/advanced/03_mixed_kernel.py: a[128,256] FP16, b[256,128] FP16,
# bias[128,128] FP32, out = a.float() @ b.float() + bias. In the staged form
# `acc` crosses from the cube task to the vector task, so ptoc passes it
# through an intermediate GM tensor (docs/ptoc.md, "Values that cross tasks").
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

M, K, N = 128, 256, 128
CFG = RunConfig(platform="a2a3sim")

torch.manual_seed(0)
A = torch.randn(M, K, dtype=torch.float16)
B = torch.randn(K, N, dtype=torch.float16)
BIAS = torch.randn(M, N, dtype=torch.float32)


@pl.jit
def staged_matmul_bias(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="cube_only"):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)      # cube (AIC), GM round-trip
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="vector_only"):
        out[:] = pl.add(acc, bias)                    # vector (AIV)
    return out


@pl.jit
def mixed_matmul_bias(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(
        level=pl.Level.CORE_GROUP,
        optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=2)],
    ):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)   # cube (AIC)
        out[:] = pl.add(acc, bias)                 # vector (AIV)
    return out


@pl.jit
def mixed_matmul_bias_lr(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(
        level=pl.Level.CORE_GROUP,
        optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT), pl.cross_core_slot(slot_num=2)],
    ):
        acc = pl.matmul(a, b, out_dtype=pl.FP32)   # cube (AIC)
        out[:] = pl.add(acc, bias)                 # vector (AIV)
    return out


for kernel in (staged_matmul_bias, mixed_matmul_bias, mixed_matmul_bias_lr):
    out = torch.zeros(M, N, dtype=torch.float32)
    kernel(A, B, BIAS, out, config=CFG)
    torch.testing.assert_close(out, A.float() @ B.float() + BIAS, rtol=1e-2, atol=1e-2)
