# A mixed kernel that streams tiles through the cross-core ring in a device
# loop: per iteration the cube multiplies one row band (C2V: the Acc tile
# goes through the ring of slot_num slots) and the vector side adds the bias
# and stores it. Four bands, two slots: the ring wraps. Completed from the mixed-kernel fragment
# of hw-native-sys/pypto@e2d0f78a docs/en/user/performance/02-runtime-overhead.md and the ring
# rules of docs/en/user/tutorials/03-mixed-kernel.md (default 2 slots: cross_core_pipe.h).
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

BANDS, BAND_ROWS, K, N = 4, 32, 128, 128
M = BANDS * BAND_ROWS
CFG = RunConfig(platform="a2a3sim")

torch.manual_seed(0)
A = torch.randn(M, K, dtype=torch.float16)
B = torch.randn(K, N, dtype=torch.float16)
BIAS = torch.randn(M, N, dtype=torch.float32)


@pl.jit
def ring_stream(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(
        level=pl.Level.CORE_GROUP,
        optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=2)],
    ):
        tb = pl.load(b, [0, 0], [K, N])                            # cube: B stays in L1
        for k in pl.range(BANDS):                                  # device loop
            ta = pl.load(a, [k * BAND_ROWS, 0], [BAND_ROWS, K])    # cube
            acc = pl.matmul(ta, tb, out_dtype=pl.FP32)             # cube -> ring (C2V)
            tbias = pl.load(bias, [k * BAND_ROWS, 0], [BAND_ROWS, N])
            pl.store(pl.add(acc, tbias), [k * BAND_ROWS, 0], out)  # vector
    return out


out = torch.zeros(M, N, dtype=torch.float32)
ring_stream(A, B, BIAS, out, config=CFG)
torch.testing.assert_close(out, A.float() @ B.float() + BIAS, rtol=1e-2, atol=1e-2)
