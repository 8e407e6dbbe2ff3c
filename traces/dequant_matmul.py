# A weight-dequantising matmul as one MIX kernel, the cross-core ring in the
# vector-to-cube direction: per band of output columns the vector side loads
# the INT8 weight band and casts it to FP16, the band crosses the ring to the
# cube, which multiplies the resident activations by it and stores the output
# band. The FP16 band is twice the bytes the vector side loaded, so moving it
# through the ring takes longer than the vector side's own work: with one
# slot the next band cannot be pushed before the cube has copied the last one
# out, and a second slot hides that (hw-native-sys/simpler@6ebaf771 docs/tpush-tpop.md).
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

M, K, BANDS, BAND_N = 16, 256, 8, 128
N = BANDS * BAND_N
CFG = RunConfig(platform="a2a3sim")

torch.manual_seed(0)
X = torch.randn(M, K, dtype=torch.float16)
W = (torch.randn(K, N) * 4).to(torch.int8)


@pl.jit
def dequant_matmul(x: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=2)]):
        tx = pl.load(x, [0, 0], [M, K])                                      # cube: resident
        for j in pl.range(BANDS):                                            # device loop
            wq = pl.load(w, [0, j * BAND_N], [K, BAND_N])                    # vector
            wf = pl.cast(wq, pl.FP16)                                        # vector -> ring (V2C)
            pl.store(pl.matmul(tx, wf, out_dtype=pl.FP32), [0, j * BAND_N], out)  # cube
    return out


out = torch.zeros(M, N, dtype=torch.float32)
dequant_matmul(X, W, out, config=CFG)
torch.testing.assert_close(out, X.float() @ W.float(), rtol=1e-2, atol=1e-1)
