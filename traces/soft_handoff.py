# A GM hand-off between the blocks of one task across a soft syncall: block i
# writes 2 * a into band i of scratch, the blocks meet at the GM-counter
# barrier, then block i reads the band of its neighbour (i + 1) % n. Arrival
# alone does not publish data: the writer cleans its lines and fences before
# the barrier, the reader invalidates after it ("Synchronize inside the kernel" of
# hw-native-sys/pypto@e2d0f78a docs/en/user/performance/02-runtime-overhead.md;
# docs/en/dev/ir/05-operators.md). Four blocks: partial occupancy is fine for a soft barrier.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

BLOCKS, TILE_ROWS, COLS = 4, 16, 128
ROWS = BLOCKS * TILE_ROWS
CFG = RunConfig(platform="a2a3sim")

torch.manual_seed(0)
A = torch.randn(ROWS, COLS, dtype=torch.float32)


@pl.jit.incore
def _neighbour_copy(a: pl.Tensor, ws: pl.InOut[pl.Tensor], scratch: pl.Out[pl.Tensor],
                    out: pl.Out[pl.Tensor]):
    i = pl.tile.get_block_idx()
    t = pl.load(a, [i * TILE_ROWS, 0], [TILE_ROWS, COLS])
    pl.store(pl.mul(t, 2.0), [i * TILE_ROWS, 0], scratch)
    pl.system.cacheinvalid()
    pl.system.fence()
    pl.system.syncall(mode=pl.SyncAllMode.SOFT,
                      core_type=pl.KernelType.AIV,
                      gm_workspace=ws,
                      used_cores=BLOCKS)
    pl.system.cacheinvalid()
    j = (i + 1) % pl.tile.get_block_num()
    u = pl.load(scratch, [j * TILE_ROWS, 0], [TILE_ROWS, COLS])
    pl.store(u, [i * TILE_ROWS, 0], out)


@pl.jit
def soft_handoff(a: pl.Tensor, ws: pl.InOut[pl.Tensor], scratch: pl.Out[pl.Tensor],
                 out: pl.Out[pl.Tensor]):
    with pl.spmd(BLOCKS):
        _neighbour_copy(a, ws, scratch, out)
    return out


ws = torch.zeros(16, dtype=torch.int32)
scratch = torch.zeros(ROWS, COLS, dtype=torch.float32)
out = torch.zeros(ROWS, COLS, dtype=torch.float32)
soft_handoff(A, ws, scratch, out, config=CFG)
torch.testing.assert_close(out, torch.roll(A * 2.0, -TILE_ROWS, 0), rtol=1e-4, atol=1e-4)
