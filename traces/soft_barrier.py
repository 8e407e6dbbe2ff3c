# In-kernel soft barrier: one SPMD task whose blocks meet at a GM-polling syncall between two
# phases (partial occupancy is fine). From hw-native-sys/pypto@e2d0f78a ("Synchronize inside the
# kernel" of docs/en/user/performance/02-runtime-overhead.md) with the shapes of the removed
# example pypto@ff45cafe examples/advanced/05_runtime_overhead.py: out = 2a, barrier, out += 1.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

BLOCKS, TILE_ROWS, COLS = 4, 64, 128
ROWS = BLOCKS * TILE_ROWS
CFG = RunConfig(platform="a2a3sim")

torch.manual_seed(0)
A = torch.randn(ROWS, COLS, dtype=torch.float32)


@pl.jit.incore
def _phased_add(a: pl.Tensor, ws: pl.InOut[pl.Tensor], out: pl.Out[pl.Tensor]):
    i = pl.tile.get_block_idx()
    t = pl.load(a, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
    pl.store(pl.mul(t, 2.0), [i * TILE_ROWS, 0], out)
    # Arrival only: write back and wait before the barrier, invalidate after.
    pl.system.cacheinvalid()
    pl.system.fence()
    pl.system.syncall(mode=pl.SyncAllMode.SOFT,
                      core_type=pl.KernelType.AIV,
                      gm_workspace=ws,     # exclusive zero-init 16-element INT32 GM tensor
                      used_cores=BLOCKS)
    pl.system.cacheinvalid()
    u = pl.load(out, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
    pl.store(pl.add(u, 1.0), [i * TILE_ROWS, 0], out)


@pl.jit
def soft_barrier(a: pl.Tensor, ws: pl.InOut[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.spmd(BLOCKS):
        _phased_add(a, ws, out)
    return out


ws = torch.zeros(16, dtype=torch.int32)
out = torch.zeros(ROWS, COLS, dtype=torch.float32)
soft_barrier(A, ws, out, config=CFG)
torch.testing.assert_close(out, A * 2.0 + 1.0, rtol=1e-4, atol=1e-4)
